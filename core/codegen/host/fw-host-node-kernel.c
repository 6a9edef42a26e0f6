/* fw-host-node-kernel.c: host kernels for the single ops of the fused schedule (fw-host-node-kernel.h).
 *
 * Why: on resnet18 the three downsampling Convs (im2col + OpenBLAS), the MaxPool (through double, a branch
 * per tap) and the classifier's Gemm, left outside every group, took 3.3 ms of a 35-40 ms fused run on the
 * reference kernels, against 0.8 ms for the same ops in ONNX Runtime. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-host-activation-block.h"
#include "fw-host-dnnl.h"
#include "fw-host-node-kernel.h"
#include "graph/fw-window.h"

typedef enum {
  NODE_DNNL,
  NODE_MAX_POOL,
  NODE_GLOBAL_AVG,      /* GlobalAveragePool over 2-D planes */
  NODE_CHANNEL_SCALE,   /* Mul of [N, C, H, W] by [N, C, 1, 1]: a squeeze-excite block's gate */
} NodeKind;

/* A 2-D max pooling window over NCHW planes. */
typedef struct
{
  gint64 planes, H, W, OH, OW, KH, KW, sh, sw, pt, pl;
  gint64 N, C;  /* planes = N · C */
} PoolGeom;

typedef struct
{
  NodeKind     kind;
  FwNodeKernel nk;
  char        *producer;
  gint64       in_elements;   /* the inferred size of the node's first input, which a run must give */
  gint64       out_dims[FW_MAX_RANK];
  guint        out_rank;
  FwDnnlPrim  *prim;
  PoolGeom     pool;
  /* NODE_GLOBAL_AVG, NODE_CHANNEL_SCALE: the activation's dims as N, C, H·W, and which input it is (the
     scale's gate is the other). */
  gint64       N, C, HW;
  guint        x_input;
  /* The channels block of the graph's channels-last form (fw_host_activation_block): a pool's or gate's
     result made channels-last from a plain one lies so. */
  guint        block;
  /* A half node (float16 or bfloat16, its computed inputs and result all of it): the float32 kernel on its
     inputs widened, the result rounded once (run_half); its constant operands widened once, here. */
  FwDType      half;
  FwTensor    *wide[3];
  /* NODE_DNNL on two activations: the inferred size of B, which the primitive reads at each run; 0 when
     its weights are a constant it took when made. */
  gint64       b_elements;
} NodeKernel;

static gboolean
is_half (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT16 || dtype == FW_DTYPE_BFLOAT16;
}

/* A static float32 value of the rank (any, for -1), or a half one where the kernel is half (the node's
 * result's type, checked once for every operand in fw_host_node_kernel_new). */
static gboolean
static_float (const FwValue *v, gint rank)
{
  if (v == NULL || (v->dtype != FW_DTYPE_FLOAT && !is_half (v->dtype)) || (rank >= 0 && v->rank != rank) ||
      !fw_value_is_static (v))
    return FALSE;
  return TRUE;
}

/* A constant operand as the float32 tensor the kernel's primitive takes: its own, or a half one widened once
 * into k->wide[slot]. */
static FwTensor *
constant_float (NodeKernel *k, const FwValue *v, guint slot)
{
  FwTensor *t = v != NULL ? v->constant : NULL;

  if (t == NULL || fw_tensor_get_data (t, NULL) == NULL || (v->dtype != FW_DTYPE_FLOAT && !is_half (v->dtype)))
    return NULL;
  if (v->dtype == FW_DTYPE_FLOAT)
    return v->constant;
  if (k->wide[slot] == NULL)
    k->wide[slot] = fw_dnnl_float_tensor (t);
  return k->wide[slot];
}

static gboolean
refuse (char **why, const char *text)
{
  *why = g_strdup (text);
  return FALSE;
}

static gboolean
describe_conv (NodeKernel *k, const FwNode *node, FwDnnlDesc *d, char **why)
{
  const FwValue *x = node->inputs[0], *w = node->n_inputs > 1 ? node->inputs[1] : NULL;
  const FwValue *b = node->n_inputs > 2 ? node->inputs[2] : NULL, *y = node->outputs[0];
  gint64 ks[2], groups = fw_node_get_attr_int (node, "group", 1);
  FwWindow2d win;

  if (!static_float (x, 4) || x->constant != NULL || !static_float (w, 4) || constant_float (k, w, 0) == NULL ||
      !static_float (y, 4) || (b != NULL && (constant_float (k, b, 1) == NULL || b->rank != 1)))
    return refuse (why, _("a Conv other than 2-D float32 with constant weights and bias"));
  ks[0] = w->dims[2].value, ks[1] = w->dims[3].value;
  if (!fw_window_2d (node, ks, &win) || groups < 1 ||
      x->dims[1].value % groups != 0 || w->dims[0].value != y->dims[1].value ||
      w->dims[1].value * groups != x->dims[1].value ||
      (b != NULL && b->dims[0].value != y->dims[1].value))
    return refuse (why, _("Conv attributes out of range"));
  memset (d, 0, sizeof *d);
  d->kind = FW_DNNL_CONV;
  d->alpha = 1.0f;
  d->n = x->dims[0].value, d->c = x->dims[1].value, d->h = win.in[0], d->w = win.in[1];
  d->m = y->dims[1].value, d->oh = win.out[0], d->ow = win.out[1], d->kh = ks[0], d->kw = ks[1], d->groups = groups;
  d->sh = win.s[0], d->sw = win.s[1], d->dh = win.d[0], d->dw = win.d[1], d->pt = win.begin[0], d->pl = win.begin[1];
  /* The least far-side padding that gives ONNX's output size (as a SuperKernel's root does). */
  d->pb = win.end[0];
  d->pr = win.end[1];
  d->block = fw_host_activation_block (node->graph);
  d->weights = constant_float (k, w, 0);
  d->bias = b != NULL ? constant_float (k, b, 1) : NULL;
  return TRUE;
}

/* Gemm, or a MatMul of an activation by a constant matrix: [rows, K] × [K, N] (+ bias over N), the rows of
 * a MatMul's A folded into one dimension. */
static gboolean
describe_product (NodeKernel *k, const FwNode *node, FwDnnlDesc *d, char **why)
{
  gboolean gemm = strcmp (node->op_type, "Gemm") == 0;
  const FwValue *a = node->inputs[0], *w = node->n_inputs > 1 ? node->inputs[1] : NULL;
  const FwValue *c = gemm && node->n_inputs > 2 ? node->inputs[2] : NULL, *y = node->outputs[0];
  gboolean ta = gemm && fw_node_get_attr_int (node, "transA", 0) != 0;
  gboolean tb = gemm && fw_node_get_attr_int (node, "transB", 0) != 0;
  float alpha = gemm ? fw_node_get_attr_float (node, "alpha", 1.0f) : 1.0f;
  float beta = gemm ? fw_node_get_attr_float (node, "beta", 1.0f) : 1.0f;
  gint64 rows = 1, K, N;

  if (!static_float (a, gemm ? 2 : -1) || a->constant != NULL || a->rank < 2 || !static_float (w, 2) ||
      constant_float (k, w, 0) == NULL || !static_float (y, -1))
    return refuse (why, _("a product other than float32 by a constant matrix"));
  K = a->dims[ta ? 0 : a->rank - 1].value;
  N = w->dims[tb ? 0 : 1].value;
  for (gint i = 0; i < a->rank - 1; i++)
    rows *= a->dims[ta ? 1 : i].value;
  /* oneDNN adds the bias after the output scale: alpha only without C, and C as given (beta 1). */
  if (w->dims[tb ? 1 : 0].value != K ||
      (c != NULL && (constant_float (k, c, 1) == NULL || c->constant->n_elements != N ||
                     c->rank < 1 || c->dims[c->rank - 1].value != N || beta != 1.0f || alpha != 1.0f)))
    return refuse (why, _("a Gemm whose C is not one constant row, or scaled"));
  memset (d, 0, sizeof *d);
  fw_dnnl_desc_set_product (d, rows, K, N, ta, tb, alpha);
  d->weights = constant_float (k, w, 0);
  d->bias = c != NULL ? constant_float (k, c, 1) : NULL;
  return TRUE;
}

/* A MatMul of two computed operands, batched over the result's leading dims, its B read at each run:
 * attention's P·V where no attention fused (bert_like_float16_islands' P·V, between a float32 Softmax
 * island's Cast and a Transpose, ran 5.3 ms a run on the reference kernels). */
static gboolean
describe_activations_product (NodeKernel *k, const FwNode *node, FwDnnlDesc *d, char **why)
{
  const FwValue *a = node->inputs[0], *b = node->n_inputs > 1 ? node->inputs[1] : NULL, *y = node->outputs[0];
  gint64 ad[FW_MAX_RANK], bd[FW_MAX_RANK], yd[FW_MAX_RANK];

  if (!static_float (a, -1) || !static_float (b, -1) || !static_float (y, -1) || a->constant != NULL ||
      b->constant != NULL)
    return refuse (why, _("a MatMul other than of float32 operands by a constant matrix or of two activations"));
  for (gint i = 0; i < a->rank; i++)
    ad[i] = a->dims[i].value;
  for (gint i = 0; i < b->rank; i++)
    bd[i] = b->dims[i].value;
  for (gint i = 0; i < y->rank; i++)
    yd[i] = y->dims[i].value;
  memset (d, 0, sizeof *d);
  if (!fw_dnnl_desc_set_matmul (d, a->rank, ad, b->rank, bd, y->rank, yd))
    return refuse (why, _("a MatMul of a vector or of rank over 6"));
  k->b_elements = fw_value_get_n_elements (b);
  return TRUE;
}

/* GlobalAveragePool of a float32 [N, C, H, W] activation, or a Mul of one by a computed [N, C, 1, 1] gate:
 * per-channel ops that run alike on both layouts. */
static gboolean
describe_channelwise (const FwNode *node, NodeKernel *k, char **why)
{
  const FwValue *x = node->inputs[0], *y = node->outputs[0];

  if (strcmp (node->op_type, "Mul") == 0)
    {
      const FwValue *a = node->inputs[0], *b = node->n_inputs > 1 ? node->inputs[1] : NULL;
      gboolean gate_b;

      if (!static_float (a, 4) || !static_float (b, 4) || a->constant != NULL || b->constant != NULL)
        return refuse (why, _("no kernel for this op"));
      gate_b = b->dims[2].value == 1 && b->dims[3].value == 1;
      x = gate_b ? a : b;
      k->x_input = gate_b ? 0 : 1;
      for (gint i = 0; i < 4; i++)
        if ((gate_b ? b : a)->dims[i].value != (i < 2 ? x->dims[i].value : 1))
          return refuse (why, _("a Mul other than by a per-channel gate"));
      k->kind = NODE_CHANNEL_SCALE;
    }
  else if (!static_float (x, 4) || x->constant != NULL)
    return refuse (why, _("a GlobalAveragePool other than 2-D float32"));
  else
    k->kind = NODE_GLOBAL_AVG;
  if (!static_float (y, 4))
    return refuse (why, _("no kernel for this op"));
  k->N = x->dims[0].value, k->C = x->dims[1].value, k->HW = x->dims[2].value * x->dims[3].value;
  return TRUE;
}

static gboolean
describe_pool (const FwNode *node, PoolGeom *p, char **why)
{
  const FwValue *x = node->inputs[0], *y = node->outputs[0];
  guint n = 0;
  const gint64 *ks = fw_node_get_attr_ints (node, "kernel_shape", &n);
  FwWindow2d win;

  if (!static_float (x, 4) || !static_float (y, 4) || x->constant != NULL ||
      (node->n_outputs > 1 && node->outputs[1] != NULL))
    return refuse (why, _("a MaxPool other than 2-D float32 without indices"));
  if (ks == NULL || n != 2 || ks[0] < 1 || ks[1] < 1 || !fw_window_2d (node, ks, &win) || win.d[0] != 1 ||
      win.d[1] != 1)
    return refuse (why, _("a MaxPool with dilations"));
  *p = (PoolGeom) { x->dims[0].value * x->dims[1].value, win.in[0], win.in[1], win.out[0], win.out[1], win.k[0],
                    win.k[1], win.s[0], win.s[1], win.begin[0], win.begin[1], x->dims[0].value, x->dims[1].value };
  return TRUE;
}

/* out = max (out, tap) element by element, the tap taken when greater. GCC at -O2 leaves such a loop of
 * unknown length scalar (maxss: 300 µs for resnet18's pool); omp simd has it use vectors (the output never
 * overlaps the input), and target clones the widest the CPU has. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("avx512f", "avx2", "default")))
#endif
static void
max_into (float *restrict out, const float *restrict tap, gint64 n)
{
  /* GCC's: clang (the fuzz build) vectorises such a loop by itself or not at all, and warns at the pragma. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma omp simd
#endif
  for (gint64 c = 0; c < n; c++)
    out[c] = tap[c] > out[c] ? tap[c] : out[c];
}

/* max_pool over channels-last data: each output pixel's C maxima at once, over its window's taps in the
 * reference's order (the first inside the input, then a later one when greater), contiguous in C. */
static void
max_pool_nhwc (const float *x, float *y, const PoolGeom *geom, guint block, guint n_threads)
{
  /* nChw16c is the NHWC layout of (N · C / 16, 16, H, W). */
  PoolGeom blocked = *geom;
  const PoolGeom *p = &blocked;
  const gint64 C = block != 0 ? (gint64) block : geom->C;

  blocked.N = geom->N * (geom->C / C);
  blocked.C = C;

#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 row = 0; row < p->N * p->OH; row++)
    {
      const gint64 n = row / p->OH, oh = row % p->OH;
      const gint64 h0 = oh * p->sh - p->pt, r0 = MAX (h0, 0), r1 = MIN (h0 + p->KH, p->H);

      for (gint64 ow = 0; ow < p->OW; ow++)
        {
          const gint64 w0 = ow * p->sw - p->pl, c0 = MAX (w0, 0), c1 = MIN (w0 + p->KW, p->W);
          float *out = y + (row * p->OW + ow) * C;

          if (r0 >= r1 || c0 >= c1)
            {
              for (gint64 c = 0; c < C; c++)
                out[c] = -INFINITY;
              continue;
            }
          memcpy (out, x + ((n * p->H + r0) * p->W + c0) * C, sizeof (float) * C);
          for (gint64 r = r0; r < r1; r++)
            for (gint64 w = r == r0 ? c0 + 1 : c0; w < c1; w++)
              max_into (out, x + ((n * p->H + r) * p->W + w) * C, C);
        }
    }
}

/* Each output row: the column-wise maxima of its window's rows (contiguous, vectorised), then each output's
 * maximum over its window's columns of those. The first tap inside the input is taken, a later one when
 * greater, as the reference does (a NaN propagates only from that first tap there too). A window wholly in
 * the padding gives -inf, the reference's -DBL_MAX as float. */
static void
max_pool (const float *x, float *y, const PoolGeom *p, guint n_threads)
{
#pragma omp parallel num_threads (n_threads)
  {
    /* A row of up to 1,024 columns on the thread's stack: a run allocates nothing for it. */
    float col_stack[1024];
    float *col_heap = p->W > (gint64) G_N_ELEMENTS (col_stack) ? g_new (float, p->W) : NULL;
    float *col = col_heap != NULL ? col_heap : col_stack;

#pragma omp for schedule (static)
    for (gint64 pl = 0; pl < p->planes; pl++)
      for (gint64 oh = 0; oh < p->OH; oh++)
        {
          gint64 h0 = oh * p->sh - p->pt, r0 = MAX (h0, 0), r1 = MIN (h0 + p->KH, p->H);
          const float *xp = x + pl * p->H * p->W;
          float *yp = y + (pl * p->OH + oh) * p->OW;

          if (r0 >= r1)
            {
              for (gint64 ow = 0; ow < p->OW; ow++)
                yp[ow] = -INFINITY;
              continue;
            }
          memcpy (col, xp + r0 * p->W, sizeof (float) * p->W);
          for (gint64 r = r0 + 1; r < r1; r++)
            max_into (col, xp + r * p->W, p->W);
          for (gint64 ow = 0; ow < p->OW; ow++)
            {
              gint64 w0 = ow * p->sw - p->pl, c0 = MAX (w0, 0), c1 = MIN (w0 + p->KW, p->W);
              float acc = c0 < c1 ? col[c0] : -INFINITY;

              for (gint64 c = c0 + 1; c < c1; c++)
                acc = col[c] > acc ? col[c] : acc;
              yp[ow] = acc;
            }
        }
    g_free (col_heap);
  }
}

/* acc += px element by element, widened to double (as max_into, vectorised where GCC builds it). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("avx512f", "avx2", "default")))
#endif
static void
add_into (double *restrict acc, const float *restrict px, gint64 n)
{
#if defined(__GNUC__) && !defined(__clang__)
#pragma omp simd
#endif
  for (gint64 c = 0; c < n; c++)
    acc[c] += (double) px[c];
}

/* Σ x in double, in eight partial sums: the reference sums pixel after pixel, which differs only in
 * double's last bits, which the float mean keeps in no case but the rarest tie. One sum after another held
 * a plain average to the latency of an add. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("avx512f", "avx2", "default")))
#endif
static double
sum_double (const float *restrict x, gint64 n)
{
  double acc = 0;

#if defined(__GNUC__) && !defined(__clang__)
#pragma omp simd reduction (+:acc)
#endif
  for (gint64 i = 0; i < n; i++)
    acc += (double) x[i];
  return acc;
}

#define AVG_CHANNELS 64

/* The mean of each plane (plain) or of each channel over the pixels (nhwc), summed in double as the
 * reference sums, pixel after pixel. [N, C, 1, 1] lies alike in both layouts. Channels-last, each thread takes
 * runs of AVG_CHANNELS channels across all the pixels: mobilenet_v3_small's ten averages took 145 µs a run on
 * one thread with a scalar loop. */
static void
global_avg (const NodeKernel *k, const float *x, float *y, gboolean nhwc, guint block, guint n_threads)
{
  /* In blocks (nChw16c): NHWC over (N · C / block, block); the result's bytes are the same. */
  const gint64 C = nhwc && block != 0 ? (gint64) block : k->C, N = k->N * (k->C / C), HW = k->HW;
  const gint64 runs = (C + AVG_CHANNELS - 1) / AVG_CHANNELS;

  if (!nhwc)
    {
#pragma omp parallel for num_threads (n_threads) schedule (static)
      for (gint64 pl = 0; pl < N * C; pl++)
        y[pl] = (float) (sum_double (x + pl * HW, HW) / (double) HW);
      return;
    }
#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 t = 0; t < N * runs; t++)
    {
      const gint64 n = t / runs, c0 = (t % runs) * AVG_CHANNELS, nc = MIN (C - c0, AVG_CHANNELS);
      double acc[AVG_CHANNELS] = { 0 };

      for (gint64 p = 0; p < HW; p++)
        add_into (acc, x + (n * HW + p) * C + c0, nc);
      for (gint64 c = 0; c < nc; c++)
        y[n * C + c0 + c] = (float) (acc[c] / (double) HW);
    }
}

/* y[i] = x[i] · g[i] over n elements, or · g[0] when g_stride is 0. Apart from channel_scale so that the
 * pointers are restrict: without it GCC kept a scalar loop (mobilenet_v3_small's squeeze-excite gates,
 * 10-30 µs each, had been the largest of its node kernels). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("avx512f", "avx2", "default")))
#endif
static void
scale_run (float *restrict y, const float *restrict x, const float *restrict g, gint64 g_stride, gint64 n)
{
  if (g_stride == 0)
    {
      const float s = g[0];
#if defined(__GNUC__) && !defined(__clang__)
#pragma omp simd
#endif
      for (gint64 i = 0; i < n; i++)
        y[i] = x[i] * s;
      return;
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma omp simd
#endif
  for (gint64 i = 0; i < n; i++)
    y[i] = x[i] * g[i];
}

/* y = x · gate, the gate one value per (n, c), x and y both plain or both nhwc. */
static void
channel_scale (const NodeKernel *k, const float *x, const float *gate, float *y, gboolean nhwc, guint block,
               guint n_threads)
{
  const gint64 C = nhwc && block != 0 ? (gint64) block : k->C, N = k->N * (k->C / C), HW = k->HW;

#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 r = 0; r < N * (nhwc ? HW : C); r++)
    {
      if (nhwc)
        scale_run (y + r * C, x + r * C, gate + r / HW * C, 1, C);
      else
        scale_run (y + r * HW, x + r * HW, gate + r, 0, HW);
    }
}

/* NODE_GLOBAL_AVG and NODE_CHANNEL_SCALE on their activation as it lies: the average's result (whose bytes
 * are the same in both layouts) flagged as out_nhwc says, the gate's in its activation's layout. */
static FwArray *
run_channelwise (NodeKernel *k, FwArray *const *inputs, gboolean out_nhwc, guint n_threads, GError **error)
{
  FwArray *x = inputs[k->x_input], *gate = k->kind == NODE_CHANNEL_SCALE ? inputs[1 - k->x_input] : NULL;
  FwArray *y;

  if (x == NULL || x->dtype != FW_DTYPE_FLOAT || x->n_elements != k->N * k->C * k->HW ||
      (k->kind == NODE_CHANNEL_SCALE && (gate == NULL || gate->dtype != FW_DTYPE_FLOAT || gate->n_elements != k->N * k->C)))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node %s: input of another shape than inferred"),
                   k->nk.node->name);
      return NULL;
    }
  if ((y = fw_array_new (FW_DTYPE_FLOAT, k->out_rank, k->out_dims, error)) == NULL)
    return NULL;
  if (k->kind == NODE_GLOBAL_AVG)
    {
      global_avg (k, x->data, y->data, x->nhwc, x->block, MAX (n_threads, 1));
      y->nhwc = out_nhwc;
      y->block = out_nhwc ? k->block : 0;
    }
  else
    {
      /* The gate is [N, C, 1, 1]: its bytes are the same in either layout. */
      channel_scale (k, x->data, gate->data, y->data, x->nhwc, x->block, MAX (n_threads, 1));
      y->nhwc = x->nhwc;
      y->block = x->block;
    }
  return y;
}

/* Bit casts for the branch-free conversions below. */
static inline float
bits_float (guint32 u)
{
  float f;
  memcpy (&f, &u, 4);
  return f;
}

static inline guint32
float_bits (float f)
{
  guint32 u;
  memcpy (&u, &f, 4);
  return u;
}

/* float16 → float32, exact (NaN payloads too), branch-free so that the loop vectorises: Maratos' form, the
 * one the generated kernels carry (fw-host-half.c). A table lookup per element cost as much as the gate it
 * fed. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("avx512f", "avx2", "default")))
#endif
static void
widen_half (const guint16 *restrict h, float *restrict f, gint64 n)
{
#if defined(__GNUC__) && !defined(__clang__)
#pragma omp simd
#endif
  for (gint64 i = 0; i < n; i++)
    {
      const guint32 w = (guint32) h[i] << 16, sign = w & 0x80000000u, two_w = w + w;
      const float norm = bits_float ((two_w >> 4) + (0xe0u << 23)) * 0x1.0p-112f;
      const float denorm = bits_float ((two_w >> 17) | (126u << 23)) - 0.5f;

      f[i] = bits_float (sign | (two_w < (1u << 27) ? float_bits (denorm) : float_bits (norm)));
    }
}

/* float32 → float16, to nearest even, branch-free so that the loop vectorises: Maratos' FP16 form, the one
 * the generated kernels carry (fw-host-half.c), which gives fw_float_to_half's bits for every input, NaN as
 * 0x7e00 with its sign. A call of that per element took most of a half gate's 150 µs. The flags the build
 * passes keep the compiler from reassociating the rounding add. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("avx512f", "avx2", "default")))
#endif
static void
round_half (const float *restrict v, guint16 *restrict d, gint64 n)
{
#if defined(__GNUC__) && !defined(__clang__)
#pragma omp simd
#endif
  for (gint64 i = 0; i < n; i++)
    {
      const guint32 w = float_bits (v[i]), shl1_w = w + w, sign = w & 0x80000000u;
      guint32 bias = shl1_w & 0xff000000u;
      float base = (fabsf (v[i]) * 0x1.0p+112f) * 0x1.0p-110f;

      bias = bias < 0x71000000u ? 0x71000000u : bias;
      base = bits_float ((bias >> 1) + 0x07800000u) + base;
      {
        const guint32 bits = float_bits (base);
        const guint32 nonsign = ((bits >> 13) & 0x7c00u) + (bits & 0x0fffu);
        /* NaN by a mask, not a choice: under the library's trapping-math the float add above may not be
           made unconditional, so a choice left the loop scalar (a tenth of a half gate's time). */
        const guint32 nan = 0u - (guint32) (shl1_w > 0xff000000u);
        d[i] = (guint16) ((sign >> 16) | (0x7e00u & nan) | (nonsign & ~nan));
      }
    }
}

/* A run of half values widened, or of float32 ones rounded: the vectorised forms for float16, bfloat16
 * (float32's upper half) element by element. */
static void
widen_run (const guint16 *h, float *f, gint64 n, gboolean bf16)
{
  if (!bf16)
    widen_half (h, f, n);
  else
    for (gint64 i = 0; i < n; i++)
      f[i] = fw_bfloat16_to_float (h[i]);
}

static void
round_run (const float *v, guint16 *d, gint64 n, gboolean bf16)
{
  if (!bf16)
    round_half (v, d, n);
  else
    for (gint64 i = 0; i < n; i++)
      d[i] = fw_float_to_bfloat16 (v[i]);
}

/* Conversions in chunks, on the threads where the array is large enough to pay for a team. */
#define CONVERT_CHUNK 8192
#define CONVERT_THREADS(n, t) ((n) >= 8 * CONVERT_CHUNK ? MAX ((t), 1) : 1)

/* x widened into a new plain float32 array (bfloat16 is float32's upper half). */
static FwArray *
widen (const FwArray *x, guint n_threads, GError **error)
{
  const guint16 *xs = x->data;
  const gint64 n = x->n_elements, n_chunks = (n + CONVERT_CHUNK - 1) / CONVERT_CHUNK;
  const gboolean bf16 = x->dtype == FW_DTYPE_BFLOAT16;
  FwArray *wide;
  float *w;

  if ((wide = fw_array_new (FW_DTYPE_FLOAT, x->rank, x->dims, error)) == NULL)
    return NULL;
  w = wide->data;
#pragma omp parallel for num_threads (CONVERT_THREADS (n, n_threads)) schedule (static)
  for (gint64 c = 0; c < n_chunks; c++)
    {
      const gint64 i0 = c * CONVERT_CHUNK;
      widen_run (xs + i0, w + i0, MIN (CONVERT_CHUNK, n - i0), bf16);
    }
  return wide;
}

static gboolean run_float (NodeKernel *k, FwArray *const *inputs, FwArray **outputs, gboolean out_nhwc,
                           guint n_threads, GError **error);

#define HALF_RUN 1024

/* NODE_GLOBAL_AVG and NODE_CHANNEL_SCALE on a half activation: each plane widened a run at a time into a
 * buffer on the stack, a gate's products rounded from there. Widening the activation whole, then the float32
 * kernel, then rounding took three passes and two arrays (mobilenet_v3_small_float16's gates and averages
 * were a fifth of its run). The product of two halves is exact in float32, so a gate gives the reference's
 * bits. */
static FwArray *
run_channelwise_half (NodeKernel *k, FwArray *const *inputs, guint n_threads, GError **error)
{
  const FwArray *x = inputs[k->x_input], *gate = k->kind == NODE_CHANNEL_SCALE ? inputs[1 - k->x_input] : NULL;
  const gint64 planes = k->N * k->C, HW = k->HW;
  const gboolean bf16 = k->half == FW_DTYPE_BFLOAT16;
  FwArray *y;

  if (x == NULL || x->dtype != k->half || x->nhwc || x->n_elements != planes * HW ||
      (gate != NULL && (gate->dtype != k->half || gate->n_elements != planes)))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node %s: input of another shape than inferred"),
                   k->nk.node->name);
      return NULL;
    }
  if ((y = fw_array_new (k->half, k->out_rank, k->out_dims, error)) == NULL)
    return NULL;
#pragma omp parallel for num_threads (CONVERT_THREADS (planes * HW, n_threads)) schedule (static)
  for (gint64 pl = 0; pl < planes; pl++)
    {
      const guint16 *xp = (const guint16 *) x->data + pl * HW;
      guint16 *yd = y->data;
      float buf[HALF_RUN], g = 0;
      double acc = 0;

      if (gate != NULL)
        widen_run ((const guint16 *) gate->data + pl, &g, 1, bf16);
      for (gint64 off = 0; off < HW; off += HALF_RUN)
        {
          const gint64 len = MIN (HALF_RUN, HW - off);

          widen_run (xp + off, buf, len, bf16);
          if (gate == NULL)
            {
              acc += sum_double (buf, len);
              continue;
            }
          for (gint64 i = 0; i < len; i++)
            buf[i] *= g;
          round_run (buf, yd + pl * HW + off, len, bf16);
        }
      if (gate == NULL)
        {
          const float mean = (float) (acc / (double) HW);
          round_run (&mean, yd + pl, 1, bf16);
        }
    }
  return y;
}

/* A half node: the float32 kernel on its computed inputs widened (its constant ones the primitive took
 * widened once), the result rounded once, to nearest even. A pool's maximum changes no value, so it gives the
 * reference's bits; the rest compute in float32 what the reference computes wider and rounds the same once
 * (mobilenet_v3_small_float16's gates, averages, Convs and classifier ran 11 of its 15 ms on the reference
 * kernels). A half node has no channels-last form: such an input is a bug upstream. */
static gboolean
run_half (NodeKernel *k, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  FwArray *wide[3] = { NULL, NULL, NULL };
  g_autoptr(FwArray) y = NULL;
  FwArray *out = NULL;
  gboolean ok = TRUE;
  /* What the float32 kernel reads: the first input, and a product's computed second. */
  guint n = k->b_elements > 0 ? 2 : 1;

  if (k->kind == NODE_GLOBAL_AVG || k->kind == NODE_CHANNEL_SCALE)
    return (outputs[0] = run_channelwise_half (k, inputs, n_threads, error)) != NULL;

  for (guint i = 0; i < n && ok; i++)
    {
      const FwArray *x = inputs[i];
      if (x == NULL || x->dtype != k->half || x->nhwc)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node %s: input of another shape than inferred"),
                       k->nk.node->name);
          ok = FALSE;
        }
      else
        ok = (wide[i] = widen (x, n_threads, error)) != NULL;
    }
  ok = ok && run_float (k, wide, &out, FALSE, n_threads, error) &&
       (y = fw_array_new (k->half, k->out_rank, k->out_dims, error)) != NULL;
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&wide[i], fw_array_unref);
  if (ok)
    {
      const float *v = out->data;
      guint16 *d = y->data;
      gboolean bf16 = k->half == FW_DTYPE_BFLOAT16;

      const gint64 n_chunks = (y->n_elements + CONVERT_CHUNK - 1) / CONVERT_CHUNK;

#pragma omp parallel for num_threads (CONVERT_THREADS (y->n_elements, n_threads)) schedule (static)
      for (gint64 c = 0; c < n_chunks; c++)
        {
          const gint64 i0 = c * CONVERT_CHUNK;
          round_run (v + i0, d + i0, MIN (CONVERT_CHUNK, y->n_elements - i0), bf16);
        }
      outputs[0] = g_steal_pointer (&y);
    }
  g_clear_pointer (&out, fw_array_unref);
  return ok;
}

/* The node on its inputs as they lie (a Conv's and a pool's first input plain or channels-last), the output
 * in out_nhwc's layout: a Conv's primitive writes it so, a pool's result is converted only when its input's
 * layout differs (the executor makes that rare). */
static gboolean
run_float (NodeKernel *k, FwArray *const *inputs, FwArray **outputs, gboolean out_nhwc, guint n_threads,
           GError **error)
{
  FwArray *x = inputs[0];
  g_autoptr(FwArray) y = NULL;

  if (k->kind == NODE_GLOBAL_AVG || k->kind == NODE_CHANNEL_SCALE)
    {
      if ((y = run_channelwise (k, inputs, out_nhwc, n_threads, error)) == NULL)
        return FALSE;
    }
  /* The shapes the kernel was made for are the inferred ones; a run on others is a bug upstream. */
  else if (x == NULL || x->dtype != FW_DTYPE_FLOAT || x->n_elements != k->in_elements ||
           (k->b_elements > 0 && (inputs[1] == NULL || inputs[1]->dtype != FW_DTYPE_FLOAT || inputs[1]->nhwc ||
                                  inputs[1]->n_elements != k->b_elements)))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node %s: input of another shape than inferred"),
                   k->nk.node->name);
      return FALSE;
    }
  else if ((y = fw_array_new (FW_DTYPE_FLOAT, k->out_rank, k->out_dims, error)) == NULL)
    return FALSE;
  else if (k->kind == NODE_MAX_POOL)
    {
      if (x->nhwc)
        max_pool_nhwc (x->data, y->data, &k->pool, x->block, MAX (n_threads, 1));
      else
        max_pool (x->data, y->data, &k->pool, MAX (n_threads, 1));
      y->nhwc = x->nhwc;
      y->block = x->block;
    }
  else
    {
      g_autoptr(FwArray) src = NULL;
      int layout;

      /* A source in another form than the primitive's is made plain first: a slower run, never a wrong one. */
      if (x->nhwc && (!fw_dnnl_prim_src_channels_last (k->prim) || x->block != fw_dnnl_prim_block (k->prim)))
        {
          if ((src = fw_array_to_plain (x, error)) == NULL)
            return FALSE;
        }
      else
        src = fw_array_ref (x);
      layout = (src->nhwc ? FW_DNNL_SRC_NHWC : 0) | (out_nhwc ? FW_DNNL_DST_NHWC : 0);
      if (fw_dnnl_prim_run (k->prim, src->data, k->b_elements > 0 ? inputs[1]->data : NULL, y->data, NULL, layout,
                            (int) MAX (n_threads, 1)) != 0)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node %s: the oneDNN primitive failed"),
                       k->nk.node->name);
          return FALSE;
        }
      y->nhwc = out_nhwc;
      y->block = out_nhwc ? fw_dnnl_prim_block (k->prim) : 0;
    }
  if (y->nhwc != out_nhwc || (out_nhwc && y->block != k->block))
    {
      g_autoptr(FwArray) plain = fw_array_to_plain (y, error);
      FwArray *other = plain == NULL ? NULL : out_nhwc ? fw_array_to_nhwc (plain, k->block, error) : fw_array_ref (plain);

      g_clear_pointer (&y, fw_array_unref);
      if ((y = other) == NULL)
        return FALSE;
    }
  outputs[0] = g_steal_pointer (&y);
  return TRUE;
}

static gboolean
run_layout (NodeKernel *k, FwArray *const *inputs, FwArray **outputs, gboolean out_nhwc, guint n_threads,
            GError **error)
{
  return k->half != FW_DTYPE_UNDEFINED ? run_half (k, inputs, outputs, n_threads, error)
                                       : run_float (k, inputs, outputs, out_nhwc, n_threads, error);
}

static gboolean
run_node_kernel (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  return run_layout (data, inputs, outputs, FALSE, n_threads, error);
}

/* FwGroupKernel.run_nhwc. */
static gboolean
run_node_kernel_nhwc (gpointer data, FwArray *const *inputs, FwArray **outputs, gboolean out_nhwc, guint n_threads,
                      GError **error)
{
  return run_layout (data, inputs, outputs, out_nhwc, n_threads, error);
}

static void
node_kernel_free (NodeKernel *k)
{
  g_clear_pointer (&k->prim, fw_dnnl_prim_free);
  for (guint i = 0; i < G_N_ELEMENTS (k->wide); i++)
    g_clear_pointer (&k->wide[i], fw_tensor_unref);
  g_free (k->producer);
  g_free (k);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NodeKernel, node_kernel_free)

FwNodeKernel *
fw_host_node_kernel_new (const FwNode *node, char **why)
{
  g_autoptr(NodeKernel) k = g_new0 (NodeKernel, 1);
  const FwValue *y = node->n_outputs > 0 ? node->outputs[0] : NULL;
  FwDnnlDesc d;

  if (node->n_inputs < 1 || node->inputs[0] == NULL || y == NULL || y->constant != NULL || y->rank < 1 ||
      y->rank > FW_MAX_RANK)
    {
      refuse (why, _("no kernel for this op"));
      return NULL;
    }
  /* A half node has every operand of its result's type: the float32 kernels take them widened. */
  if (is_half (y->dtype))
    for (guint i = 0; i < node->n_inputs; i++)
      if (node->inputs[i] != NULL && node->inputs[i]->dtype != y->dtype)
        {
          refuse (why, _("a node on operands of more than one type"));
          return NULL;
        }
  k->half = is_half (y->dtype) ? y->dtype : FW_DTYPE_UNDEFINED;
  if (strcmp (node->op_type, "MaxPool") == 0)
    {
      if (!describe_pool (node, &k->pool, why))
        return NULL;
      k->kind = NODE_MAX_POOL;
      k->producer = g_strdup ("host max-pool");
    }
  else if (strcmp (node->op_type, "GlobalAveragePool") == 0 || strcmp (node->op_type, "Mul") == 0)
    {
      if (!describe_channelwise (node, k, why))
        return NULL;
      k->producer = g_strdup (k->kind == NODE_GLOBAL_AVG ? "host global-average" : "host channel-scale");
    }
  else if (strcmp (node->op_type, "Conv") == 0 || strcmp (node->op_type, "Gemm") == 0 ||
           strcmp (node->op_type, "MatMul") == 0)
    {
      if (fw_dnnl_library () == NULL)
        {
          refuse (why, _("built without oneDNN"));
          return NULL;
        }
      gboolean activations = strcmp (node->op_type, "MatMul") == 0 && node->n_inputs > 1 &&
                             node->inputs[1] != NULL && node->inputs[1]->constant == NULL;

      if (!(strcmp (node->op_type, "Conv") == 0 ? describe_conv (k, node, &d, why)
            : activations                        ? describe_activations_product (k, node, &d, why)
                                                 : describe_product (k, node, &d, why)))
        return NULL;
      if ((k->prim = fw_dnnl_prim_new (&d, (int) g_get_num_processors (), why)) == NULL)
        return NULL;
      k->kind = NODE_DNNL;
      const char *impl = fw_dnnl_prim_get_impl (k->prim);

      k->producer = g_strdup_printf ("%s %s", strcmp (fw_dnnl_prim_get_backend (k->prim), "onednn") == 0 ? "onednn" : "host",
                                     impl);
      k->nk.kernel.product_k = d.kind == FW_DNNL_CONV ? (guint64) (d.c / MAX (d.groups, 1) * d.kh * d.kw)
                                                     : (guint64) d.src_dims[d.ndims - 1];
      k->nk.kernel.product_alpha = fabs ((gdouble) d.alpha);
      k->nk.kernel.product_a = 0;
      k->nk.kernel.product_b = 1;
    }
  else
    {
      refuse (why, _("no kernel for this op"));
      return NULL;
    }
  /* Every kind refused a first input without static dims. */
  k->in_elements = 1;
  for (gint i = 0; i < node->inputs[0]->rank; i++)
    k->in_elements *= node->inputs[0]->dims[i].value;
  k->out_rank = (guint) y->rank;
  for (gint i = 0; i < y->rank; i++)
    k->out_dims[i] = y->dims[i].value;
  k->nk.node = node;
  k->nk.producer = k->producer;
  k->nk.kernel.candidate = G_MAXUINT;
  k->nk.kernel.n_inputs = node->n_inputs;
  k->nk.kernel.inputs = node->inputs;
  k->nk.kernel.n_outputs = node->n_outputs;
  k->nk.kernel.outputs = node->outputs;
  k->nk.kernel.run = run_node_kernel;
  k->nk.kernel.data = k;
  /* Channels-last: the pools and the gate always (their loops have both forms; the gate's bytes are the
     same in both), a Conv on a primitive that computes so. */
  k->block = fw_host_activation_block (node->graph);
  if (k->kind != NODE_DNNL || (strcmp (node->op_type, "Conv") == 0 && fw_dnnl_prim_channels_last (k->prim)))
    {
      k->nk.kernel.run_nhwc = run_node_kernel_nhwc;
      k->nk.kernel.nhwc_inputs = k->kind == NODE_CHANNEL_SCALE ? 3
                                 : k->kind != NODE_DNNL || fw_dnnl_prim_src_channels_last (k->prim) ? 1 : 0;
    }
  /* In blocks of 16, a pool or gate over channels that are not a multiple of it stays plain; so does a half
     node (run_half). */
  if ((k->block != 0 && k->kind != NODE_DNNL && (k->kind == NODE_MAX_POOL ? k->pool.C : k->C) % k->block != 0) ||
      k->half != FW_DTYPE_UNDEFINED)
    {
      k->nk.kernel.run_nhwc = NULL;
      k->nk.kernel.nhwc_inputs = 0;
    }
  return &g_steal_pointer (&k)->nk;
}

void
fw_host_node_kernel_free (FwNodeKernel *nk)
{
  if (nk != NULL)
    node_kernel_free (nk->kernel.data);
}

GPtrArray *
fw_host_node_kernels_new (FwPlan *plan, GPtrArray *group_kernels)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_host_node_kernel_free);
  FwGraph *graph = fw_model_get_graph (plan->model);
  g_autoptr(GHashTable) grouped = g_hash_table_new (NULL, NULL);

  for (guint k = 0; group_kernels != NULL && k < group_kernels->len; k++)
    {
      const FwGroupKernel *g = g_ptr_array_index (group_kernels, k);
      const FwCandidate *c = g->candidate < plan->candidates->len ? g_ptr_array_index (plan->candidates, g->candidate)
                                                                   : NULL;
      for (guint n = 0; c != NULL && n < c->nodes->len; n++)
        g_hash_table_add (grouped, g_ptr_array_index (c->nodes, n));
    }
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const FwNode *node = g_ptr_array_index (graph->nodes, i);
      g_autofree char *why = NULL;
      FwNodeKernel *nk;

      if (g_hash_table_contains (grouped, node))
        continue;
      if ((nk = fw_host_node_kernel_new (node, &why)) != NULL)
        g_ptr_array_add (out, nk);
    }
  return out;
}
