/* test_cgroup.c: the CPU quota read from cgroup v2 and v1 files, in
 * folders made under a temporary directory (no root needed).
 *
 * Usage: test_cgroup (the reference directory argument is not used)
 */
#define _GNU_SOURCE /* mkdtemp, nftw */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "numerics/cgroup.h"
#include "tap.h"

static char top[256];

/* Writes text to top/rel (the folders on the way made). */
static void put(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", top, rel);
    for (char *p = path + strlen(top) + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* A mountinfo line for a mount of type (cgroup2, cgroup) of the
 * hierarchy's root at top/dir, written as the kernel escapes it. */
static void mount_line(char *out, size_t size, const char *root,
                       const char *dir, const char *type, const char *options)
{
    char point[1024], escaped[2048];
    snprintf(point, sizeof point, "%s/%s", top, dir);
    size_t n = 0;
    for (const char *p = point; *p != '\0' && n + 5 < sizeof escaped; p++) {
        if (*p == ' ' || *p == '\\') {
            n += (size_t)snprintf(escaped + n, sizeof escaped - n, "\\%03o",
                                  (unsigned)*p);
        } else {
            escaped[n++] = *p;
        }
    }
    escaped[n] = '\0';
    snprintf(out + strlen(out), size - strlen(out),
             "41 31 0:38 %s %s rw,relatime shared:9 - %s %s %s\n", root,
             escaped, type, type, options);
}

static void parsing(void)
{
    /* texts in arrays, never null pointers */
    static const struct {
        const char text[40];
        size_t cpus;
    } v2[] = {
        {"max 100000\n", 0},
        {"max 100000", 0},
        {"150000 100000\n", 2}, /* 1.5 CPUs: rounded up */
        {"50000 100000\n", 1},  /* half a CPU: at least 1 */
        {"1000 100000\n", 1},
        {"100000 100000\n", 1},
        {"200000 100000\n", 2},
        {"200001 100000\n", 3},
        {"400000 50000\n", 8},
        {"18446744073709551 1000\n", 18446744073709551u / 1000 + 1},
        {"", 0},
        {"\n", 0},
        {"max", 0},
        {"150000\n", 0},
        {"150000 \n", 0},
        {"150000 0\n", 0},
        {"0 100000\n", 0},
        {"-150000 100000\n", 0},
        {"+150000 100000\n", 0},
        {"150000  100000\n", 0},
        {"150000 100000 7\n", 0},
        {"150000 100000\n\n", 0},
        {"1.5 1\n", 0},
        {"abc 100000\n", 0},
        {"99999999999999999999 100000\n", 0}, /* 20 digits */
        {"150000 99999999999999999999\n", 0},
        {"maximum 100000\n", 0},
    };
    for (size_t i = 0; i < sizeof v2 / sizeof v2[0]; i++) {
        const size_t got = cgroup_parse_cpu_max(v2[i].text);
        ok(got == v2[i].cpus, "cpu.max \"%.*s\": %zu CPUs (got %zu)",
           (int)strcspn(v2[i].text, "\n"), v2[i].text, v2[i].cpus, got);
    }
    static const struct {
        const char quota[16], period[16];
        size_t cpus;
    } v1[] = {
        {"-1\n", "100000\n", 0},    {"150000\n", "100000\n", 2},
        {"50000\n", "100000\n", 1}, {"300000", "100000", 3},
        {"150000\n", "0\n", 0},     {"", "100000\n", 0},
        {"150000\n", "", 0},        {"15x\n", "100000\n", 0},
        {"-2\n", "100000\n", 0},
    };
    for (size_t i = 0; i < sizeof v1 / sizeof v1[0]; i++) {
        const size_t got = cgroup_parse_cfs(v1[i].quota, v1[i].period);
        ok(got == v1[i].cpus,
           "cfs_quota_us \"%.*s\", cfs_period_us \"%.*s\": %zu CPUs (got "
           "%zu)",
           (int)strcspn(v1[i].quota, "\n"), v1[i].quota,
           (int)strcspn(v1[i].period, "\n"), v1[i].period, v1[i].cpus, got);
    }
}

static void v2_trees(void)
{
    char info[8192] = "";
    mount_line(info, sizeof info, "/", "v2", "cgroup2", "rw");
    const char *self = "0::/app.slice/job.scope\n";

    put("v2/app.slice/job.scope/cpu.max", "max 100000\n");
    put("v2/app.slice/cpu.max", "max 100000\n");
    ok(cgroup_cpu_limit_from(info, self) == 0, "v2: max everywhere, no quota");

    put("v2/app.slice/job.scope/cpu.max", "150000 100000\n");
    ok(cgroup_cpu_limit_from(info, self) == 2, "v2: 1.5 CPUs in the leaf: 2");

    put("v2/app.slice/cpu.max", "50000 100000\n");
    ok(cgroup_cpu_limit_from(info, self) == 1,
       "v2: a parent's smaller quota (0.5 CPUs) wins: 1");

    put("v2/app.slice/cpu.max", "400000 100000\n");
    ok(cgroup_cpu_limit_from(info, self) == 2,
       "v2: a parent's larger quota does not raise the leaf's: 2");

    put("v2/app.slice/job.scope/cpu.max", "max 100000\n");
    put("v2/cpu.max", "300000 100000\n");
    ok(cgroup_cpu_limit_from(info, self) == 3,
       "v2: the mounted root's own cpu.max (a container's) counts: 3");
    put("v2/cpu.max", "oops\n");

    put("v2/app.slice/job.scope/cpu.max", "garbage\n");
    put("v2/app.slice/cpu.max", "200000 100000\n");
    ok(cgroup_cpu_limit_from(info, self) == 2,
       "v2: a malformed cpu.max sets nothing, the parent's counts");

    ok(cgroup_cpu_limit_from(info, "0::/app.slice/gone.scope\n") == 2,
       "v2: a leaf without files: the parent's quota still counts");
    ok(cgroup_cpu_limit_from(info, "0::/other.slice/x\n") == 0,
       "v2: missing files everywhere: no quota");
    ok(cgroup_cpu_limit_from(info, "0::/\n") == 0,
       "v2: the root cgroup with a malformed cpu.max: no quota");
    ok(cgroup_cpu_limit_from(info, "") == 0 &&
           cgroup_cpu_limit_from(info, "nonsense\n::\n0:/x\n") == 0,
       "an empty or malformed /proc/self/cgroup: no quota");
    ok(cgroup_cpu_limit_from("", self) == 0 &&
           cgroup_cpu_limit_from("garbage line\n41 31\n", self) == 0,
       "no cgroup2 mount in mountinfo: no quota");

    /* a path with spaces, escaped as \040 in mountinfo, and a container
     * that mounts only its own part of the hierarchy */
    char spaced[8192] = "";
    mount_line(spaced, sizeof spaced, "/ctr", "my cgroups", "cgroup2", "rw");
    put("my cgroups/a b/cpu.max", "120000 100000\n");
    ok(cgroup_cpu_limit_from(spaced, "0::/ctr/a b\n") == 2,
       "v2: a mount point and a cgroup with spaces in their names");
    put("my cgroups/cpu.max", "100000 100000\n");
    ok(cgroup_cpu_limit_from(spaced, "0::/ctr/a b\n") == 1,
       "v2: the mounted part's top folder counts, nothing above it");
    ok(cgroup_cpu_limit_from(spaced, "0::/elsewhere/a b\n") == 0,
       "v2: a cgroup outside the mounted part: no quota");
}

static void v1_trees(void)
{
    char info[8192] = "";
    mount_line(info, sizeof info, "/", "v1/cpuset", "cgroup", "rw,cpuset");
    mount_line(info, sizeof info, "/", "v1/cpu,cpuacct", "cgroup",
               "rw,cpu,cpuacct");
    mount_line(info, sizeof info, "/", "v1/unified", "cgroup2", "rw");
    const char *self = "12:cpuset:/\n"
                       "4:cpu,cpuacct:/user/job\n"
                       "1:name=systemd:/user/job\n"
                       "0::/user/job\n";
    put("v1/cpuset/cpu.cfs_quota_us", "50000\n"); /* not the cpu one */
    put("v1/cpuset/cpu.cfs_period_us", "100000\n");
    put("v1/cpu,cpuacct/user/job/cpu.cfs_quota_us", "-1\n");
    put("v1/cpu,cpuacct/user/job/cpu.cfs_period_us", "100000\n");
    ok(cgroup_cpu_limit_from(info, self) == 0,
       "v1: a quota of -1 is none; the cpuset hierarchy is not read");
    put("v1/cpu,cpuacct/user/job/cpu.cfs_quota_us", "250000\n");
    ok(cgroup_cpu_limit_from(info, self) == 3,
       "v1: cpu,cpuacct 2.5 CPUs: 3 (a hybrid system: cgroup2 without "
       "cpu.max)");
    put("v1/cpu,cpuacct/user/cpu.cfs_quota_us", "100000\n");
    put("v1/cpu,cpuacct/user/cpu.cfs_period_us", "100000\n");
    ok(cgroup_cpu_limit_from(info, self) == 1,
       "v1: a parent's smaller quota wins: 1");
    put("v1/unified/user/job/cpu.max", "50000 200000\n");
    put("v1/cpu,cpuacct/user/cpu.cfs_quota_us", "-1\n");
    ok(cgroup_cpu_limit_from(info, self) == 1,
       "v2 and v1 both: the smaller (v2's 0.25 CPUs): 1");
    put("v1/unified/user/job/cpu.max", "max 100000\n");
    ok(cgroup_cpu_limit_from(info, "4:cpu,cpuacct:/user/job\n") == 3,
       "v1 only, no 0:: line: v1's quota");
    put("v1/cpu,cpuacct/user/job/cpu.cfs_period_us", "x\n");
    ok(cgroup_cpu_limit_from(info, self) == 0,
       "v1: a malformed period sets no quota");
    ok(cgroup_cpu_limit_from(info, "4:cpuacct:/user/job\n") == 0,
       "v1: no line for the cpu controller: no quota");
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(top, sizeof top, "%s/mha-cgroup-test.XXXXXX",
             tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
    if (mkdtemp(top) == NULL) {
        printf("1..0 # SKIP no temporary directory\n");
        return 0;
    }
    parsing();
    v2_trees();
    v1_trees();
    ok(nftw(top, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0,
       "the test's folders removed");
    return tap_done();
}
