/* fw-host-activation-block.c: whether a model's convolutions run on blocked (nChw16c, nChw8c) activations.
 *
 * oneDNN 2.6 computes float32 convolutions on AVX-512 as brgconv over NHWC, except that its Winograd kernel
 * (jit_fp32_wino_2x3, AVX-512 only) takes nChw16c, and a run that changes layout between kernels pays a
 * reorder each time. So the layout is one choice for the whole graph: nChw16c where a quarter or more of
 * the convolutions' multiply-adds are in 3x3 stride-1 convolutions Winograd computes faster. Measured on
 * resnet18 (batch 1, 2 threads, oneDNN's own times): 56x56x64 0.61 -> 0.42 ms, 28x28x128 0.64 -> 0.40 ms,
 * 14x14x256 0.66 -> 0.49 ms, but 7x7x512 0.93 -> 1.0 ms (hence the 196-pixel floor), and the other
 * convolutions 0-15 % slower in nChw16c (jit:avx512_core) than in NHWC (brgconv).
 *
 * On AVX2 every oneDNN 2.6 convolution kernel (jit:avx2, jit_1x1:avx2, jit_dw:avx2) computes in nChw8c: plain
 * or NHWC activations were reordered into it and back at every convolution (resnet18 on an AVX2 EPYC: two
 * reorders of 0.14-0.29 ms for each 56x56x64 convolution). There the graph keeps nChw8c. */
#include "config.h"

#include "fw-host-activation-block.h"
#include "fw-host-dnnl.h"
#include "graph/fw-graph-private.h"

/* resnet50, whose 3x3 stride-1 convolutions are about a third of its multiply-adds: 28.5-29.1 ms in NHWC,
 * 26.4-26.9 ms in nChw16c; mobilenet_v3_small (none): 1.35 ms in NHWC, 2.1 ms in nChw16c. */
#define WINOGRAD_MIN_SHARE 0.25

static gboolean
all_ones (const FwNode *node, const char *name)
{
  guint n = 0;
  const gint64 *v = fw_node_get_attr_ints (node, name, &n);

  for (guint i = 0; v != NULL && i < n; i++)
    if (v[i] != 1)
      return FALSE;
  return TRUE;
}

guint
fw_host_activation_block (const FwGraph *graph)
{
  const char *forced = g_getenv ("FW_DNNL_BLOCK"), *isa = fw_dnnl_isa ();
  gdouble all = 0, winograd = 0;

  if (g_getenv ("FW_DNNL_NHWC") != NULL)
    return 0;
  if (forced != NULL)
    {
      guint64 block = g_ascii_strtoull (forced, NULL, 10);
      return block == 16 || block == 8 ? (guint) block : 0;
    }
  if (graph == NULL || isa == NULL)
    return 0;
  if (!g_str_has_prefix (isa, "avx512_core"))
    return g_str_has_prefix (isa, "avx2") ? 8 : 0;
  for (guint i = 0; i < fw_graph_get_n_nodes (graph); i++)
    {
      const FwNode *node = fw_graph_get_node ((FwGraph *) graph, i);
      const FwValue *w = node->n_inputs > 1 ? node->inputs[1] : NULL, *y = node->n_outputs > 0 ? node->outputs[0] : NULL;
      FwDnnlDesc d = { .kind = FW_DNNL_CONV };
      gdouble macs;

      if (!fw_node_is_onnx_op (node, "Conv") || w == NULL || y == NULL ||
          w->rank != 4 || y->rank != 4 || y->dtype != FW_DTYPE_FLOAT || !fw_value_is_static (w) ||
          !fw_value_is_static (y))
        continue;
      d.m = y->dims[1].value, d.oh = y->dims[2].value, d.ow = y->dims[3].value;
      d.groups = fw_node_get_attr_int (node, "group", 1);
      d.c = w->dims[1].value * d.groups, d.kh = w->dims[2].value, d.kw = w->dims[3].value;
      d.sh = d.sw = all_ones (node, "strides") ? 1 : 2;
      d.dh = d.dw = all_ones (node, "dilations") ? 1 : 2;
      macs = (gdouble) y->dims[0].value * d.m * d.oh * d.ow * w->dims[1].value * d.kh * d.kw;
      all += macs;
      if (fw_dnnl_conv_winograd_fits (&d))
        winograd += macs;
    }
  return all > 0 && winograd >= WINOGRAD_MIN_SHARE * all ? 16 : 0;
}
