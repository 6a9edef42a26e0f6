/* fw-custom-expr.h: the host expression of a custom operator (docs/custom-ops.md): a small C subset over
 * its inputs x0, x1…, parsed once when the registry is read. The same tree is printed as the C the host
 * SuperKernel compiles and evaluated by the reference kernel, so a verification compares a compiled kernel
 * with an independent evaluation rather than with itself.
 *
 * Everything is float: literals are float whatever their spelling, comparisons and logic give 1 or 0.
 * Printing rebuilds the C from the tree, so nothing of the file's text reaches the compiler verbatim. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FwCustomExpr FwCustomExpr;

#define FW_CUSTOM_EXPR_MAX_INPUTS 16
#define FW_CUSTOM_EXPR_MAX_LENGTH 4096

/* The tree of text, or NULL with *message (owned) and *offset (bytes into text, where the problem is).
 * An input xN with N >= n_inputs is an error. */
FwCustomExpr *fw_custom_expr_parse     (const char          *text,
                                        guint                n_inputs,
                                        gsize               *offset,
                                        char               **message);
void          fw_custom_expr_free      (FwCustomExpr        *expr);
/* The value at one element: x[k] is input k's element. */
float         fw_custom_expr_eval      (const FwCustomExpr  *expr,
                                        const float         *x);
/* C for the expression, with operands[k] (C expressions of type float) in place of xk. */
char         *fw_custom_expr_to_c      (const FwCustomExpr  *expr,
                                        const char * const  *operands);
/* Arithmetic operations per evaluation (calls count 1 each), for a cost when the file gives none. */
guint         fw_custom_expr_count_ops (const FwCustomExpr  *expr);
/* The functions an expression may call, NULL-terminated, for errors and docs. */
const char * const *fw_custom_expr_functions (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwCustomExpr, fw_custom_expr_free)

G_END_DECLS
