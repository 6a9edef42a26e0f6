/* fw-array.h: a tensor at run time: typed, dense, row-major, and mutable while a kernel fills it.
 *
 * FwTensor (graph/) is what a model file holds and is never written; FwArray is what the reference
 * interpreter, the fused executor and the SuperKernels pass between each other. An array made from a
 * constant tensor borrows its bytes (no copy, read-only); one made by fw_array_new owns 64-byte aligned
 * storage. int4 and uint4 arrays hold one element a byte (int4 sign-extended, so kernels read them as int8
 * or uint8): only FwTensor, the file's form, packs two a byte, and the conversion happens where an array is
 * made from a constant or turned into one. n_bytes is the storage size, not what the cost model prices
 * (fw_dtype_bytes_for: 4 bits an element). Arrays are reference counted so a value read by several nodes is freed after its last use. */
#pragma once

#include <glib.h>

#include "graph/fw-graph.h"
#include "graph/fw-tensor.h"

G_BEGIN_DECLS

typedef struct _FwArray FwArray;

struct _FwArray
{
  gatomicrefcount ref_count;
  FwDType   dtype;
  guint     rank;
  gint64    dims[FW_MAX_RANK];
  gint64    n_elements;
  gsize     n_bytes;
  gpointer  data;        /* never NULL, even for 0 elements; const when borrowed is set */
  GBytes   *borrowed;    /* the constant's bytes when the array borrows them, else NULL */
  gboolean  owned;       /* data was allocated by fw_array_new and is freed with the array */
  FwArray  *base;        /* the array whose storage a reshaped view shares, else NULL */
  /* Rank 4 only: the data lie channels-last (N, H, W, C) for the dims (N, C, H, W). Only the fused
     executor makes such arrays, between two kernels that both take that layout (fw-fused.c). */
  gboolean  nhwc;
  /* With nhwc: 0, or the channels lie last within blocks of this many (16: oneDNN's nChw16c, that is the
     NHWC layout of dims (N · C / 16, 16, H, W); 8: nChw8c likewise; C a multiple of it). */
  guint     block;
};

/* Bytes one element takes in an array: 1 for int4 and uint4, 0 for STRING and UNDEFINED. */
gsize       fw_array_element_size   (FwDType          dtype);
/* Uninitialised storage for dims. Refuses STRING, a rank over FW_MAX_RANK, an element count over the
 * tensor cap, and storage the allocator cannot give (FW_ERROR_LIMIT), never aborting. */
FwArray    *fw_array_new            (FwDType          dtype,
                                     guint            rank,
                                     const gint64    *dims,
                                     GError         **error);
/* As fw_array_new, zero-filled. */
FwArray    *fw_array_new0           (FwDType          dtype,
                                     guint            rank,
                                     const gint64    *dims,
                                     GError         **error);
/* A read-only view of a constant tensor's bytes. */
FwArray    *fw_array_new_from_tensor (FwTensor       *tensor,
                                     GError         **error);
/* A new owned array with the same dtype and dims, holding a copy of the data. */
FwArray    *fw_array_copy           (const FwArray   *array,
                                     GError         **error);
/* The same bytes seen with other dims (Reshape, Flatten, Squeeze…); n_elements must match. Shares the
 * storage: the result keeps array alive. */
FwArray    *fw_array_reshape        (FwArray         *array,
                                     guint            rank,
                                     const gint64    *dims,
                                     GError         **error);
/* The array in the plain row-major layout: array itself (a new reference) when it is, else a plain copy. */
FwArray    *fw_array_to_plain       (FwArray         *array,
                                     GError         **error);
/* A new channels-last array (in blocks of block channels, 0: all) with array's (plain, rank 4) contents. */
FwArray    *fw_array_to_nhwc        (const FwArray   *array,
                                     guint            block,
                                     GError         **error);
FwArray    *fw_array_ref            (FwArray         *array);
void        fw_array_unref          (FwArray         *array);
/* Element i as a double / int64, whatever the dtype (bool is 0 or 1, float16 widened). */
gdouble     fw_array_get_double     (const FwArray   *array,
                                     gint64           index);
gint64      fw_array_get_int64      (const FwArray   *array,
                                     gint64           index);
void        fw_array_set_double     (FwArray         *array,
                                     gint64           index,
                                     gdouble          value);
/* A constant tensor (owned copy) with the array's contents, for the writer and tests. */
FwTensor   *fw_array_to_tensor      (const FwArray   *array);
/* "[1,3,224,224]" */
char       *fw_array_format_shape   (const FwArray   *array);
/* Frees the storage and array structs kept for reuse by size (fw-array-pool.c). */
void        fw_array_pool_trim      (void);
gboolean    fw_array_same_shape     (const FwArray   *a,
                                     const FwArray   *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwArray, fw_array_unref)

G_END_DECLS
