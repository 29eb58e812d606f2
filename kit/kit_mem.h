/* kit_mem.h - what the kernel says about this machine's memory, for the
 * kit's one memory check (torus_mem_fits in torus_mpi.h): a size the user
 * chose is checked against it before anything is allocated, so a table
 * or a buffer that does not fit costs one line and exit 3, never a swap
 * storm or the OOM killer. */
#ifndef KIT_MEM_H
#define KIT_MEM_H

#include <stdint.h>

/* Bytes the kernel reports available (MemAvailable), or 0 when unknown. */
uint64_t kit_mem_available(void);
/* Physical memory of this machine in bytes, or 0 when unknown. */
uint64_t kit_mem_total(void);

#endif
