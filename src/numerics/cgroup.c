/* cgroup.c: the CPU quota of this process's control group (see
 * cgroup.h). */
#include "numerics/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest path, and longest /proc file read; longer ones set no quota. */
#define PATH_SIZE 4096
#define PROC_MAX ((size_t)16 << 20)

/* Reads the file at path into text (size bytes, NUL-terminated); false
 * when it cannot be read whole. */
static bool read_text(char *text, size_t size, const char *path)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t len = 0;
    bool whole = false;
    while (len + 1 < size) {
        const ssize_t got = read(fd, text + len, size - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            whole = got == 0;
            break;
        }
        len += (size_t)got;
    }
    close(fd);
    text[len] = '\0';
    return whole;
}

/* A decimal number of 1 to 19 digits at *p, advancing *p; false if there
 * is none (a sign, another character, too many digits). */
static bool read_number(unsigned long long *out, const char **p)
{
    const char *s = *p;
    unsigned long long v = 0;
    size_t digits = 0;
    while (*s >= '0' && *s <= '9') {
        if (++digits > 19)
            return false;
        v = v * 10 + (unsigned long long)(*s - '0');
        s++;
    }
    if (digits == 0)
        return false;
    *out = v;
    *p = s;
    return true;
}

/* True if only an optional newline is left at p. */
static bool at_end(const char *p)
{
    return p[0] == '\0' || (p[0] == '\n' && p[1] == '\0');
}

/* quota / period CPUs, rounded up, at most SIZE_MAX; 0 for a zero. */
static size_t cpus_of(unsigned long long quota, unsigned long long period)
{
    if (quota == 0 || period == 0)
        return 0;
    const unsigned long long cpus = quota / period + (quota % period != 0);
    return cpus > SIZE_MAX ? SIZE_MAX : (size_t)cpus;
}

size_t cgroup_parse_cpu_max(const char *text)
{
    unsigned long long quota, period;
    const char *p = text;
    if (strncmp(p, "max ", 4) == 0)
        return 0;
    if (!read_number(&quota, &p) || *p++ != ' ' || !read_number(&period, &p) ||
        !at_end(p))
        return 0;
    return cpus_of(quota, period);
}

size_t cgroup_parse_cfs(const char *quota_text, const char *period_text)
{
    unsigned long long quota, period;
    const char *q = quota_text, *p = period_text;
    if (!read_number(&quota, &q) || !at_end(q) || !read_number(&period, &p) ||
        !at_end(p))
        return 0; /* "-1" (no quota) among them */
    return cpus_of(quota, period);
}

/* The quota of the cgroup folder dir, in CPUs; 0 for none. */
static size_t folder_quota(const char *dir, bool v2)
{
    char path[PATH_SIZE + 32], text[64], period[64];
    if (v2) {
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        return read_text(text, sizeof text, path) ? cgroup_parse_cpu_max(text)
                                                  : 0;
    }
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    if (!read_text(text, sizeof text, path))
        return 0;
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
    if (!read_text(period, sizeof period, path))
        return 0;
    return cgroup_parse_cfs(text, period);
}

/* The smallest quota of the folders from mount/group up to mount, in
 * CPUs; 0 when none is set. */
static size_t smallest_quota(const char *mount, const char *group, bool v2)
{
    char dir[PATH_SIZE];
    const int n = snprintf(dir, sizeof dir, "%s%s", mount, group);
    if (n < 0 || (size_t)n >= sizeof dir)
        return 0;
    const size_t top = strlen(mount);
    size_t best = 0;
    for (;;) {
        const size_t cpus = folder_quota(dir, v2);
        if (cpus > 0 && (best == 0 || cpus < best))
            best = cpus;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || (size_t)(slash - dir) < top)
            break;
        *slash = '\0'; /* the parent, down to the mount point itself */
    }
    return best;
}

/* Copies the next space-separated field of mountinfo at *p into out
 * (size bytes), turning the escapes \040 (space), \011, \012 and \134
 * back into their characters; false at the end of the line or when it
 * does not fit. */
static bool next_field(char *out, size_t size, const char **p)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    size_t len = 0;
    while (*s != '\0' && *s != ' ' && *s != '\n') {
        char c = *s++;
        if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' &&
            s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
            c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
            s += 3;
        }
        if (len + 1 >= size)
            return false;
        out[len++] = c;
    }
    out[len] = '\0';
    *p = s;
    return len > 0;
}

/* True if the comma-separated list has the item. */
static bool has_item(const char *list, const char *item)
{
    const size_t n = strlen(item);
    for (const char *p = list; p != NULL; p = strchr(p, ',')) {
        if (*p == ',')
            p++;
        if (strncmp(p, item, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    }
    return false;
}

/* The cgroup path of this process in the hierarchy whose line of
 * /proc/self/cgroup has the id "0" (v2) or the controller "cpu" (v1),
 * into out; false when there is none. */
static bool own_group(char *out, size_t size, const char *cgroups, bool v2)
{
    for (const char *line = cgroups; *line != '\0';) {
        const char *end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *c1 = memchr(line, ':', len);
        const char *c2 =
            c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2 != NULL && c2[1] == '/') {
            char ctl[256];
            const size_t nctl = (size_t)(c2 - c1 - 1);
            bool match = false;
            if (v2) {
                match = c1 - line == 1 && line[0] == '0' && nctl == 0;
            } else if (nctl < sizeof ctl) {
                memcpy(ctl, c1 + 1, nctl);
                ctl[nctl] = '\0';
                match = has_item(ctl, "cpu");
            }
            const size_t npath = len - (size_t)(c2 + 1 - line);
            if (match && npath < size) {
                memcpy(out, c2 + 1, npath);
                out[npath] = '\0';
                return true;
            }
        }
        line += len + (end != NULL);
    }
    return false;
}

/* The quota of the hierarchy (v2, or v1's cpu controller) for a process
 * in `group`, from the first mount of it whose root contains the group;
 * 0 when none is found. */
static size_t hierarchy_quota(const char *mountinfo, const char *group, bool v2)
{
    for (const char *line = mountinfo; *line != '\0';) {
        const char *end = strchr(line, '\n');
        const char *p = line;
        char field[PATH_SIZE], root[PATH_SIZE], mount[PATH_SIZE];
        bool good = next_field(field, sizeof field, &p) && /* id */
                    next_field(field, sizeof field, &p) && /* parent */
                    next_field(field, sizeof field, &p) && /* dev */
                    next_field(root, sizeof root, &p) &&
                    next_field(mount, sizeof mount, &p);
        while (good && strcmp(field, "-") != 0) /* options, optional */
            good = next_field(field, sizeof field, &p);
        char type[64], options[1024];
        good = good && next_field(type, sizeof type, &p) &&
               next_field(field, sizeof field, &p) && /* source */
               next_field(options, sizeof options, &p);
        if (good &&
            (v2 ? strcmp(type, "cgroup2") == 0
                : strcmp(type, "cgroup") == 0 && has_item(options, "cpu"))) {
            /* the group's path below the mounted root: "/" mounts the
             * whole hierarchy, a container may mount only its part */
            const size_t nroot = strcmp(root, "/") == 0 ? 0 : strlen(root);
            if (strncmp(group, root, nroot) == 0 &&
                (group[nroot] == '/' || group[nroot] == '\0')) {
                const char *below = group + nroot;
                return smallest_quota(mount,
                                      strcmp(below, "/") == 0 ? "" : below, v2);
            }
        }
        if (end == NULL)
            break;
        line = end + 1;
    }
    return 0;
}

size_t cgroup_cpu_limit_from(const char *mountinfo, const char *cgroups)
{
    size_t best = 0;
    char group[PATH_SIZE];
    for (int v2 = 1; v2 >= 0; v2--) {
        if (!own_group(group, sizeof group, cgroups, v2))
            continue;
        const size_t cpus = hierarchy_quota(mountinfo, group, v2);
        if (cpus > 0 && (best == 0 || cpus < best))
            best = cpus;
    }
    return best;
}

/* The whole text of a /proc file (its size is not known before it is
 * read), NUL-terminated, owned by the caller; NULL on failure. */
static char *read_proc(const char *path)
{
    size_t size = 16384;
    char *text = NULL;
    for (;;) {
        char *bigger = realloc(text, size);
        if (bigger == NULL)
            break;
        text = bigger;
        if (read_text(text, size, path)) /* else read again, with room */
            return text;
        if (size >= PROC_MAX)
            break;
        size *= 2;
    }
    free(text);
    return NULL;
}

size_t cgroup_cpu_limit(void)
{
    char *mountinfo = read_proc("/proc/self/mountinfo");
    char *cgroups = read_proc("/proc/self/cgroup");
    const size_t cpus = mountinfo != NULL && cgroups != NULL
                            ? cgroup_cpu_limit_from(mountinfo, cgroups)
                            : 0;
    free(mountinfo);
    free(cgroups);
    return cpus;
}
