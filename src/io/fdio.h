/* fdio.h: writing a whole buffer to a file descriptor.
 *
 * write(2) may write less than it was given (a pipe, a terminal) or be
 * interrupted by a signal handler before writing anything (EINTR); the
 * pager, --step and the spool all need every byte written or an error.
 */
#ifndef MHA_FDIO_H
#define MHA_FDIO_H

#include <stddef.h>

/* Writes all len bytes of buf to fd, retrying after EINTR and after
 * partial writes. Returns 0, or -1 with errno set when a write fails (a
 * write that writes nothing sets EIO). */
int write_all(int fd, const void *buf, size_t len);

#endif
