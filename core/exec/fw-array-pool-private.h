/* fw-array-pool-private.h: the storage run-time arrays take and give back (fw-array-pool.c). */
#pragma once

#include "fw-array.h"

G_BEGIN_DECLS

/* Storage aligned to FW_ARRAY_ALIGN of `size` bytes kept from an earlier array of that size, or NULL. */
gpointer  fw_array_pool_take        (gsize    size);
/* Storage of `size` bytes from fw_array_pool_take or posix_memalign, kept for the next array of its size
 * or freed. */
void      fw_array_pool_give        (gpointer data,
                                     gsize    size);
/* A zeroed FwArray, a recycled one where one waits. */
FwArray  *fw_array_pool_new_struct  (void);
void      fw_array_pool_free_struct (FwArray *array);

G_END_DECLS
