#include "config.h"

#include <inttypes.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-onnx-reader-private.h"
#include "fw-onnx-fields.h"
#include "fw-onnx-skeleton.h"
#include "ops/fw-op-registry.h"

#define DEFAULT_MAX_NODES 5000000u
#define DEFAULT_MAX_DEPTH 64u
#define DEFAULT_MAX_ALLOC (G_GUINT64_CONSTANT (2) << 30)
#define MIN_IR_VERSION 3
#define MAX_IR_VERSION 10
#define MIN_OPSET 7
#define MAX_OPSET 21

/* ---- the model ---- */

static void
assign_ops (FwModel *model, FwGraph *graph)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);

      node->opset = fw_model_get_opset_version (model, node->domain);
      node->op = fw_op_lookup (node->domain, node->op_type);
      for (guint a = 0; a < node->n_attrs; a++)
        {
          if (node->attrs[a].g)
            assign_ops (model, node->attrs[a].g);
          for (guint k = 0; node->attrs[a].graphs && k < node->attrs[a].n; k++)
            assign_ops (model, node->attrs[a].graphs[k]);
        }
    }
}

static gboolean
graph_uses_default_domain (FwGraph *graph)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      if (node->domain[0] == '\0' || strcmp (node->domain, "ai.onnx") == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
parse_opset (Ctx *ctx, const FwPbField *outer, GError **error)
{
  FwPbField o;
  g_autofree char *domain = NULL;
  gint64 version = -1;

  FOR_EACH_FIELD (ctx, outer->data, outer->len, o, error)
    {
      if (o.field == OPSET_DOMAIN && !fw_rd_take_name (ctx, &o, N_("opset domain"), &domain, error))
        return FALSE;
      if (o.field == OPSET_VERSION)
        {
          if (!fw_rd_expect_wire (ctx, &o, FW_PB_VARINT, "version", error))
            return FALSE;
          version = (gint64) o.varint;
        }
    }
  if (_st == FW_PB_ERROR)
    return FALSE;
  if (version < 1)
    return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_INVALID,
                       _("opset import for domain “%s” has no valid version"), domain ? domain : "");
  fw_model_set_opset_version (ctx->model, domain ? domain : "", version);
  return TRUE;
}

static gboolean
parse_model (Ctx *ctx, GError **error)
{
  FwPbField f;
  FwModel *model = ctx->model;
  const FwPbField *graph_field = NULL;
  FwPbField gf;
  gboolean have_ir = FALSE;
  gint64 onnx_opset;

  {
    FOR_EACH_FIELD (ctx, ctx->base, ctx->size, f, error)
      {
        switch (f.field)
          {
          case MODEL_IR_VERSION:
            if (!fw_rd_expect_wire (ctx, &f, FW_PB_VARINT, "ir_version", error))
              return FALSE;
            model->ir_version = (gint64) f.varint;
            have_ir = TRUE;
            break;
          case MODEL_OPSET_IMPORT:
            if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "opset_import", error) || !parse_opset (ctx, &f, error))
              return FALSE;
            break;
          case MODEL_PRODUCER_NAME:
          case MODEL_PRODUCER_VERSION:
          case MODEL_DOMAIN:
            {
              g_autofree char *s = NULL;
              if (!fw_rd_take_name (ctx, &f, N_("model string"), &s, error))
                return FALSE;
              if (f.field == MODEL_PRODUCER_NAME)
                model->producer_name = fw_graph_intern (model->graph, s);
              else if (f.field == MODEL_PRODUCER_VERSION)
                model->producer_version = fw_graph_intern (model->graph, s);
              else
                model->domain = fw_graph_intern (model->graph, s);
            }
            break;
          case MODEL_MODEL_VERSION:
            if (!fw_rd_expect_wire (ctx, &f, FW_PB_VARINT, "model_version", error))
              return FALSE;
            model->model_version = (gint64) f.varint;
            break;
          case MODEL_DOC_STRING:
            if (f.wire == FW_PB_LEN)
              {
                g_autofree char *doc = g_utf8_make_valid ((const char *) f.data, f.len);
                model->doc_string = fw_graph_intern (model->graph, doc);
              }
            break;
          case MODEL_GRAPH:
            if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "graph", error))
              return FALSE;
            gf = f;
            graph_field = &gf;
            break;
          case MODEL_METADATA_PROPS:
            {
              g_autofree char *key = NULL;
              g_autofree char *value = NULL;
              if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "metadata_props", error) ||
                  !fw_rd_parse_entry (ctx, &f, &key, &value, error))
                return FALSE;
              g_ptr_array_add (model->metadata_props, g_strdup (key ? key : ""));
              g_ptr_array_add (model->metadata_props, g_strdup (value ? value : ""));
            }
            break;
          default:
            {
              FwRawField raw = { f.field, fw_rd_encoded_field (ctx, &f, &_r) };
              g_array_append_val (model->raw_fields, raw);
            }
            break;
          }
      }
    if (_st == FW_PB_ERROR)
      return FALSE;
  }

  if (ctx->size == 0)
    return fw_rd_fail (ctx, 0, error, FW_ERROR_PARSE, _("the file is empty"));
  if (!have_ir)
    return fw_rd_fail (ctx, 0, error, FW_ERROR_INVALID, _("the model has no ir_version; is this an ONNX file?"));
  if (model->ir_version < MIN_IR_VERSION || model->ir_version > MAX_IR_VERSION)
    return fw_rd_fail (ctx, 0, error, FW_ERROR_UNSUPPORTED,
                       _("ONNX IR version %" PRId64 " is not supported (supported: %d to %d)"),
                       model->ir_version, MIN_IR_VERSION, MAX_IR_VERSION);
  if (graph_field == NULL)
    return fw_rd_fail (ctx, 0, error, FW_ERROR_INVALID, _("the model has no graph"));
  if (!fw_rd_parse_graph (ctx, graph_field->data, graph_field->len, model->graph, error))
    return FALSE;

  onnx_opset = fw_model_get_opset_version (model, "");
  if (onnx_opset == 0 && graph_uses_default_domain (model->graph))
    return fw_rd_fail (ctx, 0, error, FW_ERROR_INVALID,
                       _("the model uses ai.onnx operators but imports no ai.onnx opset"));
  if (onnx_opset != 0 && (onnx_opset < MIN_OPSET || onnx_opset > MAX_OPSET))
    return fw_rd_fail (ctx, 0, error, FW_ERROR_UNSUPPORTED,
                       _("ai.onnx opset %" PRId64 " is not supported (supported: %d to %d)"),
                       onnx_opset, MIN_OPSET, MAX_OPSET);
  assign_ops (model, model->graph);

  {
    GError *local = NULL;
    if (!fw_graph_link (model->graph, &local))
      {
        g_set_error (error, FW_ERROR, local->code, "%s: %s", ctx->display, local->message);
        g_error_free (local);
        return FALSE;
      }
  }
  return TRUE;
}

static FwModel *
load_from_bytes (GBytes *bytes, GBytes *weights, const char *display, const char *base_dir,
                 const FwOnnxLoadOptions *options, GCancellable *cancellable, FwModel *model, GError **error)
{
  Ctx ctx = { 0 };
  gsize size = 0;
  gboolean ok;

  ctx.display = display;
  ctx.base = g_bytes_get_data (bytes, &size);
  if (ctx.base == NULL)
    ctx.base = (const guint8 *) "";
  ctx.size = size;
  ctx.bytes = bytes;
  ctx.weights = weights ? weights : bytes;
  ctx.model = model;
  ctx.where = g_string_new (NULL);
  ctx.max_depth = options && options->max_depth ? options->max_depth : DEFAULT_MAX_DEPTH;
  ctx.max_nodes = options && options->max_nodes ? options->max_nodes : DEFAULT_MAX_NODES;
  ctx.max_alloc = options && options->max_alloc_bytes ? options->max_alloc_bytes : DEFAULT_MAX_ALLOC;
  ctx.cancellable = cancellable;
  if (options)
    {
      ctx.progress = options->progress;
      ctx.progress_data = options->progress_data;
    }
  if (base_dir)
    ctx.base_dir_real = realpath (base_dir, NULL);
  model->file_size = size;

  ok = parse_model (&ctx, error);
  g_string_free (ctx.where, TRUE);
  free (ctx.base_dir_real);
  if (!ok)
    {
      g_object_unref (model);
      return NULL;
    }
  return model;
}

FwModel *
fw_onnx_load_bytes (GBytes *bytes, const char *display_name, const char *base_dir,
                    const FwOnnxLoadOptions *options, GError **error)
{
  return load_from_bytes (bytes, NULL, display_name ? display_name : "<memory>", base_dir, options, NULL,
                          fw_model_new (), error);
}

static void
skeleton_release (gpointer data)
{
  fw_onnx_skeleton_free (data);
}

FwModel *
fw_onnx_load (const char *path, const FwOnnxLoadOptions *options, GCancellable *cancellable, GError **error)
{
  g_autoptr(GBytes) weights = NULL;
  g_autoptr(GBytes) structure = NULL;
  g_autofree char *dir = NULL;
  FwOnnxSkeleton *skeleton;
  GMappedFile *mapped;
  GError *local = NULL;
  FwModel *model;
  struct stat st;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot open: %s"), path, g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: not a regular file"), path);
      return NULL;
    }
  skeleton = fw_onnx_skeleton_read (fd, (gsize) st.st_size,
                                    options && options->max_depth ? options->max_depth : DEFAULT_MAX_DEPTH, &local);
  if (skeleton == NULL)
    {
      close (fd);
      g_set_error (error, FW_ERROR, FW_ERROR_IO, "%s: %s", path, local->message);
      g_error_free (local);
      return NULL;
    }
  {
    guint64 cap = options && options->max_alloc_bytes ? options->max_alloc_bytes : DEFAULT_MAX_ALLOC;
    if (fw_onnx_skeleton_bytes_read (skeleton) > cap)
      {
        g_autofree char *text = g_format_size_full (cap, G_FORMAT_SIZE_IEC_UNITS);
        fw_onnx_skeleton_free (skeleton);
        close (fd);
        g_set_error (error, FW_ERROR, FW_ERROR_LIMIT,
                     _("%s: its structure (everything but tensor data) is larger than %s (raise the cap with --max-alloc-mb)"),
                     path, text);
        return NULL;
      }
  }
  structure = g_bytes_new_with_free_func (fw_onnx_skeleton_data (skeleton), (gsize) st.st_size,
                                          skeleton_release, skeleton);
  mapped = g_mapped_file_new_from_fd (fd, FALSE, &local);
  close (fd);
  if (mapped == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot map: %s"), path, local->message);
      g_error_free (local);
      return NULL;
    }
  /* Weights are read only when someone computes with them, and then in no particular order. */
  if (g_mapped_file_get_length (mapped) > 0)
    madvise (g_mapped_file_get_contents (mapped), g_mapped_file_get_length (mapped), MADV_RANDOM);
  weights = g_mapped_file_get_bytes (mapped);
  model = fw_model_new ();
  model->mapped = mapped;
  fw_model_set_path (model, path);
  dir = g_path_get_dirname (path);
  return load_from_bytes (structure, weights, path, dir, options, cancellable, model, error);
}
