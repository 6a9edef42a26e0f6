/* fw-custom-ops-private.h: one registry entry, as the reader (fw-custom-ops-reader.c) builds it and the
 * registry (fw-custom-ops.c) serves it. */
#pragma once

#include "graph/fw-dtype.h"
#include "ops/fw-custom-expr.h"
#include "ops/fw-custom-ops.h"
#include "yaml/fw-yaml.h"

G_BEGIN_DECLS

typedef enum {
  FW_CUSTOM_SHAPE_SAME_AS,    /* the shape of input shape_input */
  FW_CUSTOM_SHAPE_BROADCAST,  /* numpy broadcast of every input */
  FW_CUSTOM_SHAPE_ATTRIBUTE,  /* the ints of attribute shape_attribute */
} FwCustomShapeRule;

struct _FwCustomOp
{
  FwOpInfo           info;           /* the row nodes point at; info.custom is this entry */
  char              *domain;
  char              *op_type;
  char              *name;           /* DOMAIN:TYPE */
  char              *origin;         /* FILE:LINE:COL */
  guint              n_inputs;
  FwCustomShapeRule  shape;
  guint              shape_input;
  char              *shape_attribute;
  gboolean           dtype_fixed;
  guint              dtype_input;
  FwDType            dtype;
  gboolean           has_flops;      /* FALSE: `cost: none` */
  gdouble            flops_per_element;
  FwCustomExpr      *expr;           /* NULL: the host target refuses */
};

void      fw_custom_op_free       (FwCustomOp           *op);
/* The entries of one document (FwCustomOp*, owning), or NULL with a FILE:LINE:COL error. */
GPtrArray *fw_custom_ops_parse    (const FwYamlDocument *doc,
                                   GError              **error);

/* The row functions every entry's info points at (fw-custom-ops.c). */
gboolean  fw_custom_op_infer      (FwInferContext       *ctx,
                                   FwNode               *node,
                                   GError              **error);
gboolean  fw_custom_op_cost       (const FwNode         *node,
                                   FwOpCost             *cost);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwCustomOp, fw_custom_op_free)

G_END_DECLS
