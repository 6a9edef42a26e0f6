/* fw-custom-ops-reader.c: operator registry files → FwCustomOp entries. Everything one entry declares is
 * checked here, the host expression parsed, so a mistake is an error at its line and column when the file
 * loads rather than a wrong kernel later. Duplicates across files are the registry's (fw-custom-ops.c). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "ops/fw-custom-ops-private.h"

static const char * const top_keys[] = { "version", "ops", NULL };
static const char * const op_keys[] = {
  "domain", "type", "description", "class", "inputs", "shape", "dtype", "cost", "host_expression", NULL,
};
static const char * const same_as_keys[] = { "same_as", NULL };
static const char * const shape_keys[] = { "same_as", "attribute", NULL };
static const char * const cost_keys[] = { "flops_per_element", NULL };

/* The classes a custom operator may take. The others need what a registry entry cannot say: a reduction
 * its axes, a data movement its index map, a contraction its operands, for the planner's rows and tiles. */
static const FwOpClass custom_classes[] = { FW_OP_CLASS_ELEMENTWISE, FW_OP_CLASS_BROADCAST, FW_OP_CLASS_OPAQUE };
static const FwOpClass all_classes[] = {
  FW_OP_CLASS_ELEMENTWISE, FW_OP_CLASS_BROADCAST, FW_OP_CLASS_INJECTIVE,
  FW_OP_CLASS_REDUCE, FW_OP_CLASS_OUT_FUSABLE, FW_OP_CLASS_OPAQUE,
};

#define MAX_FLOPS_PER_ELEMENT 1e6

void
fw_custom_op_free (FwCustomOp *op)
{
  if (op == NULL)
    return;
  g_free (op->domain);
  g_free (op->op_type);
  g_free (op->name);
  g_free (op->origin);
  g_free (op->shape_attribute);
  fw_custom_expr_free (op->expr);
  g_free (op);
}

static char *
allowed_classes (void)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (custom_classes); i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", fw_op_class_name (custom_classes[i]));
  return g_string_free (s, FALSE);
}

static gboolean
read_class (const FwYamlDocument *doc, const FwYamlNode *node, FwOpClass *out, GError **error)
{
  const char *text;
  g_autofree char *allowed = allowed_classes ();

  if (!fw_yaml_get_string (doc, node, &text, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (custom_classes); i++)
    if (strcmp (text, fw_op_class_name (custom_classes[i])) == 0)
      {
        *out = custom_classes[i];
        return TRUE;
      }
  for (guint i = 0; i < G_N_ELEMENTS (all_classes); i++)
    if (strcmp (text, fw_op_class_name (all_classes[i])) == 0)
      return fw_yaml_error (error, doc, node, _("class “%s” cannot be declared for a custom operator (allowed: %s)"),
                            text, allowed);
  return fw_yaml_error (error, doc, node, _("unknown op class “%s” (allowed: %s)"), text, allowed);
}

/* An input index of the entry: 0 to n_inputs - 1. */
static gboolean
read_input_index (const FwYamlDocument *doc, const FwYamlNode *node, guint n_inputs, guint *out, GError **error)
{
  gint64 v = 0;

  if (!fw_yaml_get_int (doc, node, 0, G_MAXINT32, &v, error))
    return FALSE;
  if (v >= n_inputs)
    return fw_yaml_error (error, doc, node, _("input %" PRId64 " is out of range: the operator has %u input(s), "
                                              "0 to %u"),
                          v, n_inputs, n_inputs - 1);
  *out = (guint) v;
  return TRUE;
}

static gboolean
read_shape (const FwYamlDocument *doc, const FwYamlNode *node, FwCustomOp *op, GError **error)
{
  const FwYamlNode *value;
  static const char *usage = N_("“shape” must be broadcast, {same_as: N} or {attribute: NAME}");

  if (node->kind == FW_YAML_SCALAR)
    {
      if (strcmp (node->scalar, "broadcast") != 0)
        return fw_yaml_error (error, doc, node, _("unknown shape rule “%s”: %s"), node->scalar, _(usage));
      op->shape = FW_CUSTOM_SHAPE_BROADCAST;
      return TRUE;
    }
  if (node->kind != FW_YAML_MAPPING || node->items->len != 2)
    return fw_yaml_error (error, doc, node, "%s", _(usage));
  if (!fw_yaml_check_keys (doc, node, shape_keys, error))
    return FALSE;
  if ((value = fw_yaml_get (node, "same_as")) != NULL)
    {
      op->shape = FW_CUSTOM_SHAPE_SAME_AS;
      return read_input_index (doc, value, op->n_inputs, &op->shape_input, error);
    }
  value = fw_yaml_get (node, "attribute");
  if (!fw_yaml_expect (doc, value, FW_YAML_SCALAR, _("“attribute”"), error))
    return FALSE;
  if (value->scalar[0] == '\0')
    return fw_yaml_error (error, doc, value, _("an empty attribute name"));
  op->shape = FW_CUSTOM_SHAPE_ATTRIBUTE;
  op->shape_attribute = g_strdup (value->scalar);
  return TRUE;
}

static gboolean
read_dtype (const FwYamlDocument *doc, const FwYamlNode *node, FwCustomOp *op, GError **error)
{
  if (node->kind == FW_YAML_SCALAR)
    {
      if (!fw_dtype_from_name (node->scalar, &op->dtype) || op->dtype == FW_DTYPE_UNDEFINED)
        return fw_yaml_error (error, doc, node, _("unknown dtype “%s” (a dtype such as float32, or {same_as: N})"),
                              node->scalar);
      op->dtype_fixed = TRUE;
      return TRUE;
    }
  if (node->kind != FW_YAML_MAPPING || node->items->len != 2)
    return fw_yaml_error (error, doc, node, _("“dtype” must be a dtype such as float32, or {same_as: N}"));
  if (!fw_yaml_check_keys (doc, node, same_as_keys, error))
    return FALSE;
  return read_input_index (doc, fw_yaml_get (node, "same_as"), op->n_inputs, &op->dtype_input, error);
}

static gboolean
read_cost (const FwYamlDocument *doc, const FwYamlNode *node, FwCustomOp *op, GError **error)
{
  if (node->kind == FW_YAML_SCALAR)
    {
      if (strcmp (node->scalar, "none") != 0)
        return fw_yaml_error (error, doc, node, _("“cost” must be none or {flops_per_element: N}, not “%s”"),
                              node->scalar);
      op->has_flops = FALSE;
      return TRUE;
    }
  if (node->kind != FW_YAML_MAPPING || node->items->len != 2)
    return fw_yaml_error (error, doc, node, _("“cost” must be none or {flops_per_element: N}"));
  if (!fw_yaml_check_keys (doc, node, cost_keys, error))
    return FALSE;
  op->has_flops = TRUE;
  return fw_yaml_get_double (doc, fw_yaml_get (node, "flops_per_element"), 0, MAX_FLOPS_PER_ELEMENT,
                             &op->flops_per_element, error);
}

/* The place of byte `offset` of a scalar: on its first line the node's column moves by the offset (and the
 * opening quote); further lines count from their start. */
static gboolean
expression_error (const FwYamlDocument *doc, const FwYamlNode *node, gsize offset, const char *message,
                  GError **error)
{
  FwYamlNode at = *node;
  const char *text = node->scalar;
  const char *line_start = text;

  for (gsize i = 0; i < offset && text[i] != '\0'; i++)
    if (text[i] == '\n')
      {
        at.line++;
        line_start = text + i + 1;
      }
  if (line_start == text)
    at.column = node->column + (guint) offset + (node->plain ? 0 : 1);
  else
    at.column = (guint) (text + offset - line_start) + 1;
  return fw_yaml_error (error, doc, &at, _("host_expression: %s"), message);
}

static gboolean
read_expression (const FwYamlDocument *doc, const FwYamlNode *node, FwCustomOp *op, GError **error)
{
  g_autofree char *message = NULL;
  gsize offset = 0;

  if (!fw_yaml_expect (doc, node, FW_YAML_SCALAR, _("“host_expression”"), error))
    return FALSE;
  if (op->info.op_class == FW_OP_CLASS_OPAQUE)
    return fw_yaml_error (error, doc, node, _("an opaque operator is never fused, so it takes no host_expression"));
  op->expr = fw_custom_expr_parse (node->scalar, op->n_inputs, &offset, &message);
  if (op->expr == NULL)
    return expression_error (doc, node, offset, message, error);
  return TRUE;
}

static gboolean
read_identity (const FwYamlDocument *doc, const FwYamlNode *node, FwCustomOp *op, GError **error)
{
  const FwYamlNode *domain = fw_yaml_get (node, "domain"), *type = fw_yaml_get (node, "type");

  if (!fw_yaml_expect (doc, domain, FW_YAML_SCALAR, _("“domain”"), error)
      || !fw_yaml_expect (doc, type, FW_YAML_SCALAR, _("“type”"), error))
    {
      if (domain == NULL || type == NULL)
        {
          g_clear_error (error);
          return fw_yaml_error (error, doc, node, _("an operator needs “%s”"), domain == NULL ? "domain" : "type");
        }
      return FALSE;
    }
  if (domain->scalar[0] == '\0' || strcmp (domain->scalar, "ai.onnx") == 0)
    return fw_yaml_error (error, doc, domain, _("“%s” is ONNX's own domain; a custom operator needs a domain of its "
                                                "own, such as com.example"),
                          domain->scalar);
  if (type->scalar[0] == '\0' || strchr (type->scalar, ':') != NULL)
    return fw_yaml_error (error, doc, type, _("“%s” is not an operator type"), type->scalar);
  op->domain = g_strdup (domain->scalar);
  op->op_type = g_strdup (type->scalar);
  op->name = g_strdup_printf ("%s:%s", op->domain, op->op_type);
  op->origin = g_strdup_printf ("%s:%u:%u", doc->filename, node->line, node->column);
  return TRUE;
}

static FwCustomOp *
parse_op (const FwYamlDocument *doc, const FwYamlNode *node, GError **error)
{
  g_autoptr(FwCustomOp) op = g_new0 (FwCustomOp, 1);
  const FwYamlNode *value;
  gint64 n_inputs = 0;

  if (!fw_yaml_expect (doc, node, FW_YAML_MAPPING, _("an operator"), error)
      || !fw_yaml_check_keys (doc, node, op_keys, error) || !read_identity (doc, node, op, error))
    return NULL;
  if ((value = fw_yaml_get (node, "class")) == NULL)
    return fw_yaml_error (error, doc, node, _("%s needs “class”"), op->name), NULL;
  if (!read_class (doc, value, &op->info.op_class, error))
    return NULL;
  if ((value = fw_yaml_get (node, "inputs")) == NULL)
    return fw_yaml_error (error, doc, node, _("%s needs “inputs” (how many it takes)"), op->name), NULL;
  if (!fw_yaml_get_int (doc, value, 1, FW_CUSTOM_EXPR_MAX_INPUTS, &n_inputs, error))
    return NULL;
  op->n_inputs = (guint) n_inputs;
  op->shape = op->info.op_class == FW_OP_CLASS_BROADCAST ? FW_CUSTOM_SHAPE_BROADCAST : FW_CUSTOM_SHAPE_SAME_AS;
  if ((value = fw_yaml_get (node, "shape")) != NULL && !read_shape (doc, value, op, error))
    return NULL;
  if ((value = fw_yaml_get (node, "dtype")) != NULL && !read_dtype (doc, value, op, error))
    return NULL;
  if ((value = fw_yaml_get (node, "host_expression")) != NULL && !read_expression (doc, value, op, error))
    return NULL;
  /* Without a cost the expression's own operations are the estimate. */
  op->has_flops = op->expr != NULL;
  op->flops_per_element = op->expr ? MAX (1, fw_custom_expr_count_ops (op->expr)) : 0;
  if ((value = fw_yaml_get (node, "cost")) != NULL && !read_cost (doc, value, op, error))
    return NULL;
  if ((value = fw_yaml_get (node, "description")) != NULL
      && !fw_yaml_expect (doc, value, FW_YAML_SCALAR, _("“description”"), error))
    return NULL;
  op->info.domain = op->domain;
  op->info.op_type = op->op_type;
  op->info.infer = fw_custom_op_infer;
  op->info.cost = fw_custom_op_cost;
  op->info.since_opset = 1;
  op->info.custom = op;
  return g_steal_pointer (&op);
}

GPtrArray *
fw_custom_ops_parse (const FwYamlDocument *doc, GError **error)
{
  g_autoptr(GPtrArray) ops = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_custom_op_free);
  const FwYamlNode *root = doc->root, *version, *list;

  if (root == NULL)
    return g_steal_pointer (&ops);
  if (!fw_yaml_expect (doc, root, FW_YAML_MAPPING, _("an operator registry"), error)
      || !fw_yaml_check_keys (doc, root, top_keys, error))
    return NULL;
  if ((version = fw_yaml_get (root, "version")) != NULL)
    {
      gint64 v = 0;
      if (!fw_yaml_get_int (doc, version, 1, 1, &v, error))
        return NULL;
    }
  if ((list = fw_yaml_get (root, "ops")) == NULL)
    return g_steal_pointer (&ops);
  if (!fw_yaml_expect (doc, list, FW_YAML_SEQUENCE, _("“ops”"), error))
    return NULL;
  for (guint i = 0; i < list->items->len; i++)
    {
      const FwYamlNode *item = g_ptr_array_index (list->items, i);
      FwCustomOp *op = parse_op (doc, item, error);

      if (op == NULL)
        return NULL;
      for (guint k = 0; k < ops->len; k++)
        {
          const FwCustomOp *other = g_ptr_array_index (ops, k);
          if (strcmp (other->name, op->name) == 0)
            {
              fw_yaml_error (error, doc, item, _("%s is declared twice (first at %s)"), op->name, other->origin);
              fw_custom_op_free (op);
              return NULL;
            }
        }
      g_ptr_array_add (ops, op);
    }
  return g_steal_pointer (&ops);
}
