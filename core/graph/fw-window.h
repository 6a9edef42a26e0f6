/* fw-window.h: the geometry of a 2-D window operator (a Conv, a pool) over NCHW, from its attributes and its
 * inferred shapes: decided here once for every code generator that lowers one. */
#pragma once

#include "fw-graph.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 in[2], out[2];   /* input and output H, W */
  gint64 k[2];            /* the window (the kernel's KH, KW, or kernel_shape) */
  gint64 s[2], d[2];      /* strides, dilations */
  gint64 begin[2];        /* top and left padding: auto_pad's, or pads' */
  gint64 end[2];          /* the least bottom and right padding that gives ONNX's output size */
} FwWindow2d;

/* node's window over its input 0 and output 0 (both rank 4, static), of size k. FALSE when strides or
 * dilations are not two positive values or pads not four non-negative ones. */
gboolean fw_window_2d (const FwNode *node, const gint64 k[2], FwWindow2d *w);

G_END_DECLS
