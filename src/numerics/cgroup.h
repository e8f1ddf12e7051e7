/* cgroup.h: the CPU quota of this process's control group.
 *
 * A container or a systemd unit may allow a process less CPU time than
 * its affinity mask shows: "1.5 CPUs" is a quota of 150 ms of CPU time
 * every 100 ms. --threads defaults to the processors available, at most
 * the quota rounded up (1.5 CPUs: 2 threads; 0.5: 1).
 *
 * Both kinds of cgroup file system are read, found where
 * /proc/self/mountinfo says they are mounted:
 *
 *   cgroup v2 (cgroup2)       cpu.max: "max 100000" (no quota) or
 *                             "150000 100000" (quota, period in us)
 *   cgroup v1, cpu controller cpu.cfs_quota_us: "-1" (no quota) or
 *                             "150000"; cpu.cfs_period_us: "100000"
 *
 * A cgroup's quota also limits every cgroup below it, so the smallest
 * quota of the process's cgroup and its ancestors (up to the top of what
 * is mounted) counts. A file that is missing, unreadable or not in these
 * forms sets no quota.
 */
#ifndef MHA_CGROUP_H
#define MHA_CGROUP_H

#include <stddef.h>

/* The CPUs this process's cgroups allow it, rounded up (at least 1), or
 * 0 when no quota is set or none can be read. */
size_t cgroup_cpu_limit(void);

/* The same from `mountinfo` and `cgroups`, the texts of
 * /proc/self/mountinfo and /proc/self/cgroup, reading the cgroup files
 * under the mount points that mountinfo names (a test gives temporary
 * folders). */
size_t cgroup_cpu_limit_from(const char *mountinfo, const char *cgroups);

/* The quota of a cgroup v2 cpu.max text in CPUs, rounded up; 0 for "max"
 * and for anything malformed. */
size_t cgroup_parse_cpu_max(const char *text);

/* The quota of cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us texts in
 * CPUs, rounded up; 0 for "-1" and for anything malformed. */
size_t cgroup_parse_cfs(const char *quota, const char *period);

#endif
