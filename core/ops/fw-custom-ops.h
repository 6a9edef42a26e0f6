/* fw-custom-ops.h: the operator registry files (docs/custom-ops.md): custom operators of other domains
 * declared fusable, with their op class, output shape and dtype rules, cost and host expression. Loaded
 * with --ops FILE|DIR and from the preferences' `ops` key.
 *
 * A registry is installed for the whole process (fw_custom_ops_install) before a model is read, because
 * the reader gives each node its registry row once (node->op). Rows stay valid for the life of the
 * process: a registry installed once is never freed, even after another replaces it. */
#pragma once

#include <glib.h>

#include "ops/fw-custom-expr.h"
#include "ops/fw-op-registry.h"

G_BEGIN_DECLS

typedef struct _FwCustomOps FwCustomOps;

FwCustomOps    *fw_custom_ops_new          (void);
void            fw_custom_ops_free         (FwCustomOps        *set);
/* One file, or every *.yaml in a folder in name order. Transactional: on error nothing is added. Errors
 * are FW_ERROR_PARSE "FILE:LINE:COL: message". */
gboolean        fw_custom_ops_load_path    (FwCustomOps        *set,
                                            const char         *file_or_dir,
                                            GError            **error);
gboolean        fw_custom_ops_load_data    (FwCustomOps        *set,
                                            const char         *display_name,
                                            const char         *data,
                                            gsize               len,
                                            GError            **error);
guint           fw_custom_ops_get_n_ops    (const FwCustomOps  *set);
const FwOpInfo *fw_custom_ops_get_op       (const FwCustomOps  *set,
                                            guint               index);
const FwOpInfo *fw_custom_ops_find         (const FwCustomOps  *set,
                                            const char         *domain,
                                            const char         *op_type);

/* Makes set (taken; NULL: none) the registry fw_op_lookup reads from now on. */
void            fw_custom_ops_install      (FwCustomOps        *set);
/* Loads every path in order into a new registry and installs it; on error the installed one stays. */
gboolean        fw_custom_ops_install_paths (const char * const *paths,
                                            GError            **error);
/* The installed registry's row, or NULL. */
const FwOpInfo *fw_custom_ops_lookup       (const char         *domain,
                                            const char         *op_type);

/* What a row declares, for the targets and the reference kernel. */
gboolean        fw_op_is_custom            (const FwOpInfo     *op);
/* "com.example:FastGelu" (static, valid as long as the row). */
const char     *fw_custom_op_get_name      (const FwCustomOp   *op);
/* "FILE:LINE:COL" of its entry. */
const char     *fw_custom_op_get_origin    (const FwCustomOp   *op);
guint           fw_custom_op_get_n_inputs  (const FwCustomOp   *op);
/* The parsed host expression (fw-custom-expr.h), or NULL when the entry gives none. */
const FwCustomExpr *fw_custom_op_get_expr (const FwCustomOp *op);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwCustomOps, fw_custom_ops_free)

G_END_DECLS
