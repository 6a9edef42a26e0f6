/* fw-host-activation-block.h: the one layout a model's convolution primitives keep activations in between
 * kernels. */
#pragma once

#include "graph/fw-graph.h"

G_BEGIN_DECLS

/* The channels block of graph's float32 convolutions' activations (FwDnnlDesc.block): 16 (nChw16c) on
 * AVX-512 when enough of them are 3x3 stride-1 ones oneDNN's Winograd kernel takes; 8 (nChw8c) on AVX2,
 * where every oneDNN convolution kernel computes in it; 0 when oneDNN chooses (channels-last on AVX-512).
 * Decided once per graph, read by every host kernel made for it (fw-host-producers.c, fw-host-node-kernel.c).
 * FW_DNNL_BLOCK=0, 8 or 16 overrides the choice; FW_DNNL_NHWC (tests) implies 0. */
guint fw_host_activation_block (const FwGraph *graph);

G_END_DECLS
