/* fw-host-dnnl.c: oneDNN convolution and matmul primitives for host SuperKernels (fw-host-dnnl.h). */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-host-dnnl.h"
#include "fw-host-gemv.h"
#include "hw/fw-host-bench.h"
#include "fw-host-winograd.h"

void
fw_dnnl_desc_set_product (FwDnnlDesc *d, gint64 M, gint64 K, gint64 N, gboolean trans_a, gboolean trans_b,
                          float alpha)
{
  d->kind = FW_DNNL_MATMUL;
  d->ndims = 2;
  d->src_dims[0] = M, d->src_dims[1] = K;
  d->src_strides[0] = trans_a ? 1 : K, d->src_strides[1] = trans_a ? M : 1;
  d->wei_dims[0] = K, d->wei_dims[1] = N;
  d->wei_strides[0] = trans_b ? 1 : N, d->wei_strides[1] = trans_b ? K : 1;
  d->dst_dims[0] = M, d->dst_dims[1] = N;
  d->alpha = alpha;
}

gboolean
fw_dnnl_desc_set_matmul (FwDnnlDesc *d, gint a_rank, const gint64 *a_dims, gint b_rank, const gint64 *b_dims,
                         gint y_rank, const gint64 *y_dims)
{
  gint nb = y_rank - 2;
  gint64 NB = 1, M, K, N;
  gboolean same = a_rank == y_rank;

  if (a_rank < 2 || b_rank < 2 || y_rank < 2 || y_rank > FW_DNNL_MAX_RANK || a_rank > y_rank || b_rank > y_rank)
    return FALSE;
  M = y_dims[nb], N = y_dims[nb + 1], K = a_dims[a_rank - 1];
  for (gint k = 0; k < nb; k++)
    {
      NB *= y_dims[k];
      same = same && a_dims[k] == y_dims[k];
    }
  d->kind = FW_DNNL_MATMUL;
  /* One batch matrix (batch dims all 1, or a shared 2-D B under an A with the result's batch dims, folded
     into one tall A) is a plain 2-D product: there oneDNN takes constant weights in its blocked layout,
     where for 3-D it keeps them plain and packs them again on every run (ViT's MLP MatMuls ran 20x slower
     that way). */
  if (NB == 1 || (b_rank == 2 && same))
    {
      fw_dnnl_desc_set_product (d, M * NB, K, N, FALSE, FALSE, 1.0f);
      return TRUE;
    }
  d->ndims = y_rank;
  /* Batch dims: the result's, 1 where an operand is broadcast (it is row-major over its own dims, so over
     these too). */
  for (gint k = 0; k < nb; k++)
    {
      gint ka = k - (y_rank - a_rank), kb = k - (y_rank - b_rank);
      d->src_dims[k] = ka < 0 || a_dims[ka] == 1 ? 1 : y_dims[k];
      d->wei_dims[k] = kb < 0 || b_dims[kb] == 1 ? 1 : y_dims[k];
      d->dst_dims[k] = y_dims[k];
    }
  d->src_dims[nb] = M, d->src_dims[nb + 1] = K;
  d->wei_dims[nb] = K, d->wei_dims[nb + 1] = N;
  d->dst_dims[nb] = M, d->dst_dims[nb + 1] = N;
  for (gint x = 0; x < 2; x++)
    {
      gint64 *dims = x == 0 ? d->src_dims : d->wei_dims, *st = x == 0 ? d->src_strides : d->wei_strides;
      st[y_rank - 1] = 1;
      for (gint k = y_rank - 2; k >= 0; k--)
        st[k] = st[k + 1] * dims[k + 1];
    }
  d->alpha = 1.0f;
  return TRUE;
}

FwTensor *
fw_dnnl_float_tensor (FwTensor *t)
{
  g_autofree float *values = NULL;

  if (t->dtype == FW_DTYPE_FLOAT)
    return fw_tensor_ref (t);
  values = g_new (float, MAX (t->n_elements, 1));
  for (gint64 i = 0; i < t->n_elements; i++)
    {
      double v = 0;
      fw_tensor_get_double (t, i, &v);
      values[i] = (float) v;
    }
  return fw_tensor_new_float (t->rank, t->dims, values);
}

/* At 7x7 outputs Winograd was slower than the direct kernel (fw-host-activation-block.c). */
#define WINOGRAD_MIN_PIXELS 196

gboolean
fw_dnnl_conv_winograd_fits (const FwDnnlDesc *d)
{
  return d->kind == FW_DNNL_CONV && d->kh == 3 && d->kw == 3 && d->sh == 1 && d->sw == 1 && d->dh == 1 &&
         d->dw == 1 && d->groups == 1 && d->c % 16 == 0 && d->m % 16 == 0 &&
         d->oh * d->ow >= WINOGRAD_MIN_PIXELS;
}

#ifdef HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>

/* oneDNN's blocked activation form of desc.block channels: nChw16c (AVX-512) or nChw8c (AVX2). */
static dnnl_format_tag_t
blocked_tag (guint block)
{
  return block == 8 ? dnnl_nChw8c : dnnl_nChw16c;
}

struct _FwDnnlPrim
{
  FwDnnlDesc             desc;
  char                  *impl;
  GMutex                 lock;
  int                    pd_threads;   /* the threads pd was made for */
  int                    threads;      /* the threads prim was made for, 0 before prepare */
  dnnl_primitive_desc_t  pd;
  dnnl_primitive_t       prim;
  dnnl_stream_t          stream;
  /* Per operand (0 src, 1 weights, 2 dst): the plain layout the kernel passes, the primitive's own when it
   * differs (with the reorder between them and a buffer in that layout), else NULL. */
  dnnl_memory_desc_t     user_md[3];
  dnnl_memory_t          user_mem[3];
  dnnl_memory_t          own_mem[3];
  dnnl_primitive_t       reorder[3];
  dnnl_memory_desc_t     bias_md;
  dnnl_memory_t          bias_mem;       /* over the bias tensor's aligned bytes, when desc.bias is set */
  gboolean               weights_ready;  /* constant weights reordered into own_mem[1] */
  /* A conv whose own dst is NHWC (desc.block 0), nChw16c (16) or nChw8c (8), and src_form when its own src is too:
     memory objects in that layout over a run's channels-last pointers (0 src, 2 dst), which then need no
     reorder. */
  gboolean               nhwc;
  gboolean               src_form;
  dnnl_memory_t          nhwc_mem[3];
  /* desc.residual: the run's plain residual, and its reorder into the primitive's dst layout. */
  dnnl_memory_t          res_mem;
  dnnl_primitive_t       res_reorder;
  /* A 3x3 convolution computed by our own Winograd kernel instead (fw-host-winograd.h): then the oneDNN
     primitive is described (its layouts checked) but never made. */
  FwWinograd            *wino;
  /* A product of a few rows by constant weights computed by our own kernel instead (fw-host-gemv.h), as
     wino. */
  FwGemv                *gemv;
};

static dnnl_engine_t
engine (void)
{
  static dnnl_engine_t e = NULL;
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      if (dnnl_engine_create (&e, dnnl_cpu, 0) != dnnl_success)
        e = NULL;
      g_once_init_leave (&once, 1);
    }
  return e;
}

const char *
fw_dnnl_library (void)
{
  static char *name = NULL;
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      const dnnl_version_t *v = dnnl_version ();
      name = g_strdup_printf ("oneDNN %d.%d.%d", v->major, v->minor, v->patch);
      g_once_init_leave (&once, 1);
    }
  return name;
}

const char *
fw_dnnl_isa (void)
{
  switch (dnnl_get_effective_cpu_isa ())
    {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_all:
    default: return "any";
    }
}

static void
dims_copy (dnnl_dims_t to, const gint64 *from, gint n)
{
  for (gint i = 0; i < n; i++)
    to[i] = from[i];
}

/* The plain layouts the kernel's operands have, and the descriptor's with format any where the primitive
 * may choose (conv: all three; matmul: constant weights only, activations stay as they lie). */
static gboolean
init_mds (const FwDnnlDesc *d, dnnl_memory_desc_t user[3], dnnl_memory_desc_t any[3])
{
  dnnl_dims_t dims[3], strides[3];
  gboolean ok = TRUE;

  if (d->kind == FW_DNNL_CONV)
    {
      const gint64 sd[4] = { d->n, d->c, d->h, d->w }, dd[4] = { d->n, d->m, d->oh, d->ow };
      const gint64 wd1[4] = { d->m, d->c, d->kh, d->kw };
      const gint64 wdg[5] = { d->groups, d->m / d->groups, d->c / d->groups, d->kh, d->kw };
      gint wn = d->groups > 1 ? 5 : 4;

      dims_copy (dims[0], sd, 4);
      dims_copy (dims[1], d->groups > 1 ? wdg : wd1, wn);
      dims_copy (dims[2], dd, 4);
      ok = dnnl_memory_desc_init_by_tag (&user[0], 4, dims[0], dnnl_f32, dnnl_nchw) == dnnl_success &&
           dnnl_memory_desc_init_by_tag (&user[1], wn, dims[1], dnnl_f32, wn == 5 ? dnnl_goihw : dnnl_oihw) ==
             dnnl_success &&
           dnnl_memory_desc_init_by_tag (&user[2], 4, dims[2], dnnl_f32, dnnl_nchw) == dnnl_success;
      /* FW_DNNL_NHWC (tests): the activations channels-last whatever oneDNN would choose, so that the fused
         executor's channels-last path runs on every CPU (oneDNN 2.6 picks NHWC itself on AVX-512). */
      for (gint k = 0; k < 3 && ok; k++)
        {
          gboolean blocked = d->block != 0 && (k == 0 ? d->c : d->m) % d->block == 0;

          ok = dnnl_memory_desc_init_by_tag (&any[k], k == 1 ? wn : 4, dims[k], dnnl_f32,
                                             k == 1   ? dnnl_format_tag_any
                                             : blocked ? blocked_tag (d->block)
                                             : g_getenv ("FW_DNNL_NHWC") != NULL ? dnnl_nhwc
                                                                                 : dnnl_format_tag_any) ==
               dnnl_success;
        }
      return ok;
    }
  dims_copy (dims[0], d->src_dims, d->ndims);
  dims_copy (strides[0], d->src_strides, d->ndims);
  dims_copy (dims[1], d->wei_dims, d->ndims);
  dims_copy (strides[1], d->wei_strides, d->ndims);
  dims_copy (dims[2], d->dst_dims, d->ndims);
  strides[2][d->ndims - 1] = 1;
  for (gint i = d->ndims - 2; i >= 0; i--)
    strides[2][i] = strides[2][i + 1] * dims[2][i + 1];
  ok = dnnl_memory_desc_init_by_strides (&user[0], d->ndims, dims[0], dnnl_f32, strides[0]) == dnnl_success &&
       dnnl_memory_desc_init_by_strides (&user[1], d->ndims, dims[1], dnnl_f32, strides[1]) == dnnl_success &&
       dnnl_memory_desc_init_by_strides (&user[2], d->ndims, dims[2], dnnl_f32, strides[2]) == dnnl_success;
  any[0] = user[0];
  any[2] = user[2];
  if (ok && d->weights != NULL)
    ok = dnnl_memory_desc_init_by_tag (&any[1], d->ndims, dims[1], dnnl_f32, dnnl_format_tag_any) == dnnl_success;
  else
    any[1] = user[1];
  return ok;
}

/* The bias: [M] for a conv, [1, ..., 1, N] for a matmul (broadcast over the rows and batches). */
static gboolean
init_bias_md (const FwDnnlDesc *d, dnnl_memory_desc_t *md)
{
  dnnl_dims_t dims;

  if (d->kind == FW_DNNL_CONV)
    {
      dims[0] = d->m;
      return dnnl_memory_desc_init_by_tag (md, 1, dims, dnnl_f32, dnnl_x) == dnnl_success;
    }
  for (gint i = 0; i < d->ndims; i++)
    dims[i] = i == d->ndims - 1 ? d->dst_dims[i] : 1;
  return dnnl_memory_desc_init_by_tag (md, d->ndims, dims, dnnl_f32,
                                       d->ndims == 2 ? dnnl_ab : d->ndims == 3 ? dnnl_abc : d->ndims == 4 ? dnnl_abcd
                                       : d->ndims == 5 ? dnnl_abcde : dnnl_abcdef) == dnnl_success;
}

/* The primitive descriptor for threads (jit kernels split their work by the thread count they are made
 * for), or a refusal. */
static gboolean
make_pd (FwDnnlPrim *p, int threads, char **why)
{
  const FwDnnlDesc *d = &p->desc;
  dnnl_memory_desc_t any[3];
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t st;
  const char *impl = NULL;
  int saved = omp_get_max_threads ();

  if (engine () == NULL)
    {
      *why = g_strdup (_("oneDNN has no CPU engine"));
      return FALSE;
    }
  if (!init_mds (d, p->user_md, any) || (d->bias != NULL && !init_bias_md (d, &p->bias_md)))
    {
      *why = g_strdup (_("oneDNN refuses the operand shapes"));
      return FALSE;
    }
  if (dnnl_primitive_attr_create (&attr) != dnnl_success)
    {
      *why = g_strdup (_("oneDNN cannot make primitive attributes"));
      return FALSE;
    }
  /* Reduced precision off: the kernels verify against float32 reference kernels. */
  st = dnnl_primitive_attr_set_fpmath_mode (attr, dnnl_fpmath_mode_strict);
  if (st == dnnl_success && d->kind == FW_DNNL_MATMUL && d->alpha != 1.0f)
    st = dnnl_primitive_attr_set_output_scales (attr, 1, 0, &d->alpha);
  if (st == dnnl_success && (d->post != FW_DNNL_POST_NONE || d->residual))
    {
      dnnl_post_ops_t po = NULL;

      st = dnnl_post_ops_create (&po);
      if (st == dnnl_success && d->residual)
        st = dnnl_post_ops_append_sum (po, 1.0f);
      if (st == dnnl_success && d->post == FW_DNNL_POST_HARD_SIGMOID)
        {
          st = dnnl_post_ops_append_eltwise (po, 1.0f, dnnl_eltwise_linear, d->post_alpha, d->post_beta);
          if (st == dnnl_success)
            st = dnnl_post_ops_append_eltwise (po, 1.0f, dnnl_eltwise_clip_v2, 0.0f, 1.0f);
        }
      else if (st == dnnl_success && d->post != FW_DNNL_POST_NONE)
        st = dnnl_post_ops_append_eltwise (po, 1.0f, d->post == FW_DNNL_POST_RELU       ? dnnl_eltwise_relu
                                                     : d->post == FW_DNNL_POST_GELU_ERF ? dnnl_eltwise_gelu_erf
                                                                                        : dnnl_eltwise_hardswish,
                                           0.0f, 0.0f);
      if (st == dnnl_success)
        st = dnnl_primitive_attr_set_post_ops (attr, po);
      if (po != NULL)
        dnnl_post_ops_destroy (po);
    }
  omp_set_num_threads (MAX (threads, 1));
  if (st == dnnl_success && d->kind == FW_DNNL_CONV)
    {
      dnnl_convolution_desc_t cd;
      dnnl_dims_t strides = { d->sh, d->sw }, dil = { d->dh - 1, d->dw - 1 }, pl = { d->pt, d->pl },
                  pr = { d->pb, d->pr };

      /* Winograd where asked and taken (AVX-512 only): else the direct algorithm. Its float32 error stays
         within the product-order tolerance (resnet18: every group at most 5 % of it, as direct). */
      st = dnnl_unimplemented;
      if (d->block == 16 && fw_dnnl_conv_winograd_fits (d) &&
          dnnl_convolution_forward_desc_init (&cd, dnnl_forward_inference, dnnl_convolution_winograd, &any[0], &any[1],
                                              d->bias ? &p->bias_md : NULL, &any[2], strides, pl, pr) == dnnl_success)
        st = dnnl_primitive_desc_create (&p->pd, &cd, attr, engine (), NULL);
      if (st != dnnl_success)
        {
          st = dnnl_dilated_convolution_forward_desc_init (&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                                           &any[0], &any[1], d->bias ? &p->bias_md : NULL, &any[2],
                                                           strides, dil, pl, pr);
          if (st == dnnl_success)
            st = dnnl_primitive_desc_create (&p->pd, &cd, attr, engine (), NULL);
        }
    }
  else if (st == dnnl_success)
    {
      dnnl_matmul_desc_t md;

      st = dnnl_matmul_desc_init (&md, &any[0], &any[1], d->bias ? &p->bias_md : NULL, &any[2]);
      if (st == dnnl_success)
        st = dnnl_primitive_desc_create (&p->pd, &md, attr, engine (), NULL);
    }
  omp_set_num_threads (saved);
  dnnl_primitive_attr_destroy (attr);
  if (st != dnnl_success)
    {
      p->pd = NULL;
      *why = g_strdup_printf (_("oneDNN has no implementation for this %s (status %d)"),
                              d->kind == FW_DNNL_CONV ? "Conv" : "MatMul", (int) st);
      return FALSE;
    }
  dnnl_primitive_desc_query (p->pd, dnnl_query_impl_info_str, 0, &impl);
  p->nhwc = p->src_form = FALSE;
  if (d->kind == FW_DNNL_CONV)
    {
      dnnl_format_tag_t tag = d->block != 0 ? blocked_tag (d->block) : dnnl_nhwc;
      dnnl_memory_desc_t form[2];
      const dnnl_memory_desc_t *own_src = dnnl_primitive_desc_query_md (p->pd, dnnl_query_src_md, 0);
      const dnnl_memory_desc_t *own_dst = dnnl_primitive_desc_query_md (p->pd, dnnl_query_dst_md, 0);

      /* nChw16c pads the channels to a multiple of 16 (nChw8c of 8): only where there is nothing to pad does
         it lie in an array of the tensor's own size. */
      p->nhwc = own_dst != NULL && (d->block == 0 || d->m % d->block == 0) &&
                dnnl_memory_desc_init_by_tag (&form[1], 4, p->user_md[2].dims, dnnl_f32, tag) == dnnl_success &&
                dnnl_memory_desc_equal (own_dst, &form[1]);
      p->src_form = p->nhwc && own_src != NULL && (d->block == 0 || d->c % d->block == 0) &&
                    dnnl_memory_desc_init_by_tag (&form[0], 4, p->user_md[0].dims, dnnl_f32, tag) == dnnl_success &&
                    dnnl_memory_desc_equal (own_src, &form[0]);
      /* NHWC as before: a primitive in that form takes both or neither. */
      if (d->block == 0 && !p->src_form)
        p->nhwc = FALSE;
    }
  /* Our Winograd kernel takes nChw8c wherever nothing is padded, whatever oneDNN would have chosen. */
  if (p->wino != NULL)
    {
      p->nhwc = p->src_form = d->c % 8 == 0 && d->m % 8 == 0;
      impl = FW_WINOGRAD_IMPL;
    }
  /* Our product kernel reads and writes plain rows. */
  if (p->gemv != NULL)
    {
      p->nhwc = p->src_form = FALSE;
      impl = FW_GEMV_IMPL;
    }
  g_free (p->impl);
  p->impl = g_strdup (impl ? impl : "unknown");
  p->pd_threads = threads;
  return TRUE;
}

static void
clear_prepared (FwDnnlPrim *p)
{
  for (gint k = 0; k < 3; k++)
    {
      g_clear_pointer (&p->user_mem[k], dnnl_memory_destroy);
      g_clear_pointer (&p->own_mem[k], dnnl_memory_destroy);
      g_clear_pointer (&p->reorder[k], dnnl_primitive_destroy);
      g_clear_pointer (&p->nhwc_mem[k], dnnl_memory_destroy);
    }
  g_clear_pointer (&p->res_mem, dnnl_memory_destroy);
  g_clear_pointer (&p->res_reorder, dnnl_primitive_destroy);
  g_clear_pointer (&p->bias_mem, dnnl_memory_destroy);
  g_clear_pointer (&p->prim, dnnl_primitive_destroy);
  g_clear_pointer (&p->stream, dnnl_stream_destroy);
  p->threads = 0;
  p->weights_ready = FALSE;
}

FwDnnlPrim *
fw_dnnl_prim_new (const FwDnnlDesc *desc, int n_threads, char **why)
{
  FwDnnlPrim *p = g_new0 (FwDnnlPrim, 1);

  p->desc = *desc;
  if (desc->weights != NULL)
    p->desc.weights = fw_tensor_ref (desc->weights);
  if (desc->bias != NULL)
    p->desc.bias = fw_tensor_ref (desc->bias);
  g_mutex_init (&p->lock);
  if (fw_winograd_fits (desc))
    p->wino = fw_winograd_new (desc);
  else if (fw_gemv_fits (desc))
    p->gemv = fw_gemv_new (desc);
  if (!make_pd (p, n_threads, why))
    {
      fw_dnnl_prim_free (p);
      return NULL;
    }
  return p;
}

void
fw_dnnl_prim_free (FwDnnlPrim *p)
{
  if (p == NULL)
    return;
  clear_prepared (p);
  g_clear_pointer (&p->pd, dnnl_primitive_desc_destroy);
  g_clear_pointer (&p->wino, fw_winograd_free);
  g_clear_pointer (&p->gemv, fw_gemv_free);
  g_clear_pointer (&p->desc.weights, fw_tensor_unref);
  g_clear_pointer (&p->desc.bias, fw_tensor_unref);
  g_mutex_clear (&p->lock);
  g_free (p->impl);
  g_free (p);
}

const char *
fw_dnnl_prim_get_impl (FwDnnlPrim *p)
{
  return p->impl;
}

const char *
fw_dnnl_prim_get_backend (FwDnnlPrim *p)
{
  return p->wino != NULL ? "winograd" : p->gemv != NULL ? "gemv" : "onednn";
}

gboolean
fw_dnnl_prim_channels_last (FwDnnlPrim *p)
{
  return p->nhwc;
}

gboolean
fw_dnnl_prim_src_channels_last (FwDnnlPrim *p)
{
  return p->src_form;
}

guint
fw_dnnl_prim_block (FwDnnlPrim *p)
{
  return p->desc.block;
}

static const dnnl_query_t md_query[3] = { dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md };

/* An operand's memory objects: the user's (its pointer set at each run) and, when the primitive wants
 * another layout, a buffer in that layout and the reorder between them (user → own for inputs, own → user
 * for the result). */
static gboolean
prepare_operand (FwDnnlPrim *p, gint k)
{
  const dnnl_memory_desc_t *own = dnnl_primitive_desc_query_md (p->pd, md_query[k], 0);
  dnnl_primitive_desc_t rpd = NULL;
  gboolean ok;

  if (own == NULL || dnnl_memory_create (&p->user_mem[k], &p->user_md[k], engine (), DNNL_MEMORY_NONE) != dnnl_success)
    return FALSE;
  if (dnnl_memory_desc_equal (own, &p->user_md[k]))
    return TRUE;
  if (dnnl_memory_create (&p->own_mem[k], own, engine (), DNNL_MEMORY_ALLOCATE) != dnnl_success)
    return FALSE;
  if (k == 2)
    ok = dnnl_reorder_primitive_desc_create (&rpd, own, engine (), &p->user_md[k], engine (), NULL) == dnnl_success;
  else
    ok = dnnl_reorder_primitive_desc_create (&rpd, &p->user_md[k], engine (), own, engine (), NULL) == dnnl_success;
  ok = ok && dnnl_primitive_create (&p->reorder[k], rpd) == dnnl_success;
  if (rpd != NULL)
    dnnl_primitive_desc_destroy (rpd);
  return ok;
}

/* Activations up to this many bytes are reordered on the calling thread: the copy is memory-bound and takes
 * well under a millisecond there, where on a loaded machine a parallel region may wait a whole scheduler
 * slice for a thread that did not get a core (onednn_verbose: 3-6 ms for resnet18's 100 kB reorders). */
#define SERIAL_REORDER_BYTES (4 << 20)

static gboolean
run_reorder (FwDnnlPrim *p, gint k)
{
  dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, k == 2 ? p->own_mem[k] : p->user_mem[k] },
                              { DNNL_ARG_TO, k == 2 ? p->user_mem[k] : p->own_mem[k] } };

  return dnnl_primitive_execute (p->reorder[k], p->stream, 2, args) == dnnl_success;
}

static gboolean
prepare_locked (FwDnnlPrim *p, int threads)
{
  g_autofree char *why = NULL;
  gboolean ok = TRUE;

  if ((p->threads == threads && p->prim != NULL) || p->wino != NULL || p->gemv != NULL)
    return TRUE;
  clear_prepared (p);
  if (p->pd_threads != threads)
    {
      g_clear_pointer (&p->pd, dnnl_primitive_desc_destroy);
      if (!make_pd (p, threads, &why))
        return FALSE;
    }
  if (dnnl_stream_create (&p->stream, engine (), dnnl_stream_default_flags) != dnnl_success ||
      dnnl_primitive_create (&p->prim, p->pd) != dnnl_success)
    ok = FALSE;
  for (gint k = 0; k < 3 && ok; k++)
    ok = prepare_operand (p, k);
  for (gint k = 0; k < 3 && ok && p->nhwc; k += 2)
    ok = (k == 0 && !p->src_form) || dnnl_memory_create (&p->nhwc_mem[k], dnnl_primitive_desc_query_md (p->pd, md_query[k], 0), engine (),
                             DNNL_MEMORY_NONE) == dnnl_success;
  if (ok && p->desc.residual)
    {
      dnnl_primitive_desc_t rpd = NULL;
      const dnnl_memory_desc_t *own = dnnl_primitive_desc_query_md (p->pd, dnnl_query_dst_md, 0);

      ok = dnnl_memory_create (&p->res_mem, &p->user_md[2], engine (), DNNL_MEMORY_NONE) == dnnl_success;
      if (ok && !dnnl_memory_desc_equal (own, &p->user_md[2]))
        ok = dnnl_reorder_primitive_desc_create (&rpd, &p->user_md[2], engine (), own, engine (), NULL) ==
               dnnl_success &&
             dnnl_primitive_create (&p->res_reorder, rpd) == dnnl_success;
      if (rpd != NULL)
        dnnl_primitive_desc_destroy (rpd);
    }
  /* Constant weights: reordered once, here, into the primitive's layout (or read in place when it is the
     plain one). */
  if (ok && p->desc.weights != NULL)
    {
      gpointer data = (gpointer) fw_tensor_get_data (p->desc.weights, NULL);

      ok = dnnl_memory_set_data_handle (p->user_mem[1], data) == dnnl_success &&
           (p->reorder[1] == NULL || (run_reorder (p, 1) && dnnl_stream_wait (p->stream) == dnnl_success));
    }
  /* The bias is read in place, from the tensor's aligned bytes (raw_data may lie at any offset). */
  if (ok && p->desc.bias != NULL)
    ok = dnnl_memory_create (&p->bias_mem, &p->bias_md, engine (),
                             (void *) g_bytes_get_data (fw_tensor_get_aligned_bytes (p->desc.bias, 16), NULL)) ==
         dnnl_success;
  if (!ok)
    {
      clear_prepared (p);
      return FALSE;
    }
  p->weights_ready = p->desc.weights != NULL;
  p->threads = threads;
  return TRUE;
}

gboolean
fw_dnnl_prim_prepare (FwDnnlPrim *p, int n_threads)
{
  int saved = omp_get_max_threads ();
  gboolean ok;

  g_mutex_lock (&p->lock);
  omp_set_num_threads (MAX (n_threads, 1));
  ok = prepare_locked (p, MAX (n_threads, 1));
  omp_set_num_threads (saved);
  g_mutex_unlock (&p->lock);
  return ok;
}

/* The sum post-op's start: dst (the primitive's dst memory) filled with the residual. A copy when both lie
 * alike, else the residual's reorder from plain into the primitive's layout. */
static gboolean
fill_residual (FwDnnlPrim *p, dnnl_memory_t dst, const float *residual, int layout)
{
  const dnnl_memory_desc_t *md = NULL;
  gboolean dst_plain, res_plain = !(layout & FW_DNNL_RESIDUAL_NHWC);
  void *to = NULL;

  if (dnnl_memory_get_memory_desc (dst, &md) != dnnl_success || dnnl_memory_get_data_handle (dst, &to) != dnnl_success)
    return FALSE;
  dst_plain = dnnl_memory_desc_equal (md, &p->user_md[2]);
  if (dst_plain == res_plain)
    {
      /* dst may be the residual's own storage, handed over by the executor (fw_superkernel_inplace_inputs). */
      if (to != residual)
        memcpy (to, residual, dnnl_memory_desc_get_size (md));
      return TRUE;
    }
  if (!res_plain || p->res_reorder == NULL || dnnl_memory_set_data_handle (p->res_mem, (void *) residual) != dnnl_success)
    return FALSE;
  {
    dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, p->res_mem }, { DNNL_ARG_TO, dst } };

    return dnnl_primitive_execute (p->res_reorder, p->stream, 2, args) == dnnl_success;
  }
}

/* The primitive's memory for operand k (0 src, 2 dst) over the run's pointer: the pointer itself where it
 * lies as the primitive wants it (plain, or channels-last for an NHWC primitive), else the primitive's own
 * buffer, reordered from (src) or to (dst) the pointer by run_reorder. */
static dnnl_memory_t
bind_activation (FwDnnlPrim *p, gint k, void *ptr, gboolean nhwc)
{
  if (nhwc)
    return dnnl_memory_set_data_handle (p->nhwc_mem[k], ptr) == dnnl_success ? p->nhwc_mem[k] : NULL;
  if (dnnl_memory_set_data_handle (p->user_mem[k], ptr) != dnnl_success)
    return NULL;
  return p->own_mem[k] != NULL ? p->own_mem[k] : p->user_mem[k];
}

static gboolean
run_locked (FwDnnlPrim *p, const float *src, const float *weights, float *dst, const float *residual, int layout,
            int threads)
{
  gboolean src_nhwc = (layout & FW_DNNL_SRC_NHWC) != 0, dst_nhwc = (layout & FW_DNNL_DST_NHWC) != 0;
  dnnl_memory_t src_mem, dst_mem;
  dnnl_exec_arg_t args[4];
  gboolean ok;

  /* Channels-last operands only for a primitive that computes in that layout, and a residual exactly when
     the primitive adds one. */
  if ((layout != 0 && !p->nhwc) || (src_nhwc && !p->src_form) || (p->desc.residual != (residual != NULL)))
    return FALSE;
  if (p->wino != NULL)
    return fw_winograd_run (p->wino, src, dst, residual, layout, threads) == 0;
  if (p->gemv != NULL)
    return fw_gemv_run (p->gemv, src, dst, threads) == 0;
  src_mem = bind_activation (p, 0, (void *) src, src_nhwc);
  dst_mem = bind_activation (p, 2, dst, dst_nhwc);
  ok = src_mem != NULL && dst_mem != NULL &&
       (p->weights_ready || dnnl_memory_set_data_handle (p->user_mem[1], (void *) weights) == dnnl_success);
  for (gint k = 0; k < 2 && ok; k++)
    if (p->reorder[k] != NULL && !(k == 1 && p->weights_ready) && !(k == 0 && src_nhwc))
      {
        omp_set_num_threads (dnnl_memory_desc_get_size (&p->user_md[k]) <= SERIAL_REORDER_BYTES ? 1 : threads);
        ok = run_reorder (p, k);
      }
  if (ok && residual != NULL)
    {
      omp_set_num_threads (1);
      ok = fill_residual (p, dst_mem, residual, layout);
    }
  omp_set_num_threads (threads);
  args[0] = (dnnl_exec_arg_t) { DNNL_ARG_SRC, src_mem };
  args[1] = (dnnl_exec_arg_t) { DNNL_ARG_WEIGHTS, p->own_mem[1] ? p->own_mem[1] : p->user_mem[1] };
  args[2] = (dnnl_exec_arg_t) { DNNL_ARG_DST, dst_mem };
  args[3] = (dnnl_exec_arg_t) { DNNL_ARG_BIAS, p->bias_mem };
  ok = ok && dnnl_primitive_execute (p->prim, p->stream, p->bias_mem ? 4 : 3, args) == dnnl_success;
  if (ok && p->reorder[2] != NULL && !dst_nhwc)
    {
      omp_set_num_threads (dnnl_memory_desc_get_size (&p->user_md[2]) <= SERIAL_REORDER_BYTES ? 1 : threads);
      ok = run_reorder (p, 2);
    }
  return ok && dnnl_stream_wait (p->stream) == dnnl_success;
}

int
fw_dnnl_prim_run (void *data, const float *src, const float *weights, float *dst, const float *residual, int layout,
                  int n_threads)
{
  FwDnnlPrim *p = data;
  int saved = omp_get_max_threads (), threads = MAX (n_threads, 1);
  gboolean ok;

  g_mutex_lock (&p->lock);
  omp_set_num_threads (threads);
  ok = prepare_locked (p, threads) && run_locked (p, src, weights, dst, residual, layout, threads);
  omp_set_num_threads (saved);
  g_mutex_unlock (&p->lock);
  return ok ? 0 : 1;
}

#else /* !HAVE_DNNL */

const char *
fw_dnnl_library (void)
{
  return NULL;
}

const char *
fw_dnnl_isa (void)
{
  return NULL;
}

FwDnnlPrim *
fw_dnnl_prim_new (const FwDnnlDesc *desc, int n_threads, char **why)
{
  (void) desc;
  (void) n_threads;
  *why = g_strdup (_("built without oneDNN"));
  return NULL;
}

void
fw_dnnl_prim_free (FwDnnlPrim *prim)
{
  (void) prim;
}

const char *
fw_dnnl_prim_get_impl (FwDnnlPrim *prim)
{
  (void) prim;
  return NULL;
}

const char *
fw_dnnl_prim_get_backend (FwDnnlPrim *prim)
{
  (void) prim;
  return NULL;
}

gboolean
fw_dnnl_prim_prepare (FwDnnlPrim *prim, int n_threads)
{
  (void) prim;
  (void) n_threads;
  return FALSE;
}

gboolean
fw_dnnl_prim_channels_last (FwDnnlPrim *prim)
{
  (void) prim;
  return FALSE;
}

gboolean
fw_dnnl_prim_src_channels_last (FwDnnlPrim *prim)
{
  (void) prim;
  return FALSE;
}

guint
fw_dnnl_prim_block (FwDnnlPrim *prim)
{
  (void) prim;
  return 0;
}

int
fw_dnnl_prim_run (void *prim, const float *src, const float *weights, float *dst, const float *residual, int layout,
                  int n_threads)
{
  (void) prim;
  (void) src;
  (void) weights;
  (void) dst;
  (void) residual;
  (void) layout;
  (void) n_threads;
  return 1;
}

#endif /* HAVE_DNNL */

typedef struct
{
  FwDnnlPrim *prim;
  guint       threads;
} TimedProduct;

/* The first call makes the primitive over b as constant weights, as a kernel's preparation does; every call
 * runs it. */
static gboolean
timed_product (gpointer data, guint m, guint n, guint k, const float *a, const float *b, float *c)
{
  TimedProduct *t = data;

  if (t->prim == NULL)
    {
      gint64 dims[2] = { k, n };
      g_autoptr(FwTensor) weights = fw_tensor_new_float (2, dims, b);
      g_autofree char *why = NULL;
      FwDnnlDesc d = { 0 };

      fw_dnnl_desc_set_product (&d, m, k, n, FALSE, FALSE, 1.0f);
      d.weights = weights;
      if ((t->prim = fw_dnnl_prim_new (&d, (int) t->threads, &why)) == NULL)
        return FALSE;
    }
  return fw_dnnl_prim_run (t->prim, a, NULL, c, NULL, 0, (int) t->threads) == 0;
}

double
fw_dnnl_time_product (guint m, guint n, guint k, guint n_threads)
{
  TimedProduct t = { NULL, n_threads };
  double seconds = fw_host_bench_time_product (m, n, k, timed_product, &t);

  fw_dnnl_prim_free (t.prim);
  return seconds;
}
