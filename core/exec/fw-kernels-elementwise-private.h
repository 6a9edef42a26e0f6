/* fw-kernels-elementwise-private.h: what the elementwise kernels (fw-kernels-elementwise.c) share with
 * the machinery that runs them (fw-kernels-elementwise-run.c): the per-type loop signatures and parameters,
 * the broadcast walker, 16-bit floats through float32, casts, and the plumbing every kernel goes through. */
#pragma once

#include "fw-kernel.h"
#include "hw/fw-host-threads.h"

G_BEGIN_DECLS

/* Longest run one call of a row function gets, so one long row still spreads over threads. */
#define SEGMENT 16384
/* float16/bfloat16 elements converted per step, on the stack. */
#define HALF_BLOCK 256
#define MAX_WALK_INPUTS 3

typedef struct _Params Params;

/* n contiguous elements of in into out. */
typedef void (*UnaryFn) (const void *in, void *out, gint64 n, const Params *p);
/* n elements of out from inputs read with element strides st[k] (0: the same element throughout, 1: the
 * next one). */
typedef void (*RowFn) (const void *const *in, const gint64 *st, void *out, gint64 n, const Params *p);

struct _Params
{
  double   alpha;
  double   beta;
  double   gamma;
  double   lambd;
  double   bias;
  double   lo_f;      /* Clip bounds for float types */
  double   hi_f;
  gint64   lo_i;      /* Clip bounds for integer types (bit pattern for uint64) */
  gint64   hi_i;
  gboolean detect_pos;
  gboolean detect_neg;
  /* For the 16-bit float wrappers: the storage type and the float32 kernel they run. */
  FwDType  half;
  gboolean bool_out;
  UnaryFn  f32_unary;
  RowFn    f32_row;
};

typedef struct
{
  UnaryFn  fn[FW_DTYPE_N_TYPES];
  gboolean bool_out;
} UnaryOp;

typedef struct
{
  RowFn    fn[FW_DTYPE_N_TYPES];
  gboolean bool_out;
} BinaryOp;

/* The iteration space of a broadcast, with size-1 axes dropped and axes merged where every input is
 * contiguous across them. The last axis is the row a row function runs over. */
typedef struct
{
  guint  n_in;
  guint  rank;
  gint64 dims[FW_MAX_RANK];
  gint64 st[MAX_WALK_INPUTS][FW_MAX_RANK];
  gsize  in_size[MAX_WALK_INPUTS];
  gsize  out_size;
} Walk;

/* float16 or bfloat16: computed through the float32 loops. */
static inline gboolean
fw_ew_is_half (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT16 || dtype == FW_DTYPE_BFLOAT16;
}

/* Float to integer conversions that saturate (NaN gives 0) instead of being undefined. */
static inline gint64
fw_ew_f2i64 (double d)
{
  if (!(d == d))
    return 0;
  if (d >= 9.2233720368547758e18)
    return G_MAXINT64;
  if (d <= -9.2233720368547758e18)
    return G_MININT64;
  return (gint64) d;
}

static inline guint64
fw_ew_f2u64 (double d)
{
  if (d >= 1.8446744073709552e19)
    return G_MAXUINT64;
  if (d >= 0.0)
    return (guint64) d;
  return (guint64) fw_ew_f2i64 (d);
}

/* n 16-bit floats of kind (float16 or bfloat16) to float32 and back, rounding to nearest even. */
void fw_ew_half_load (float *dst, const guint16 *src, gint64 n, FwDType kind);

void fw_ew_half_store (guint16 *dst, const float *src, gint64 n, FwDType kind);

/* The walk of a broadcast of n_in inputs (at most MAX_WALK_INPUTS) to the output dims; walk_run runs fn
 * over its rows, split across threads. */
void fw_ew_walk_init (Walk *w, guint n_in, FwArray *const *in, guint out_rank, const gint64 *out_dims,
                      gsize out_size);

void fw_ew_walk_run (FwExecContext *ctx, const Walk *w, const void *const *in, void *out, RowFn fn, const Params *p);

/* fw_array_new with the node named in the error. */
FwArray *fw_ew_new_output (const FwNode *node, FwDType dtype, guint rank, const gint64 *dims, GError **error);

/* Fails unless the first n_required inputs are present and there is an output. */
gboolean fw_ew_need_inputs (const FwNode *node, FwArray *const *inputs, guint n_inputs, guint n_required,
                            guint n_outputs, GError **error);

gboolean fw_ew_unsupported_type (GError **error, const FwNode *node, FwDType dtype);

/* x converted to dtype (x itself, referenced, when it has it already). */
FwArray *fw_ew_cast_array (FwExecContext *ctx, const FwNode *node, FwArray *x, FwDType dtype, GError **error);

/* op over x, or over the broadcast of a and b; 16-bit floats go through the float32 loop. */
FwArray *fw_ew_run_unary (FwExecContext *ctx, const FwNode *node, FwArray *x, const UnaryOp *op, const Params *p,
                          GError **error);

FwArray *fw_ew_run_binary (FwExecContext *ctx, const FwNode *node, FwArray *a, FwArray *b, const BinaryOp *op,
                           const Params *p, GError **error);

/* A whole kernel of one op: the inputs checked, output 0 computed. */
gboolean fw_ew_unary_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                             FwArray **outputs, guint n_outputs, const UnaryOp *op, const Params *p, GError **error);

gboolean fw_ew_binary_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                              FwArray **outputs, guint n_outputs, const BinaryOp *op, const Params *p,
                              GError **error);

/* Cast converts from and to dtype. */
gboolean fw_ew_cast_supported (FwDType dtype);

G_END_DECLS
