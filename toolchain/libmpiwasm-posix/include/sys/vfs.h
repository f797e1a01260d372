/* sys/vfs.h - the same as <sys/statfs.h> (the Linux name for it). */
#include <sys/statfs.h>
