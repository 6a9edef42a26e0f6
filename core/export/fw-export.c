/* fw-export.c: the fused model, whitelist, kernel package and report of a plan, into one folder. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-export.h"
#include "fw-fused-model.h"
#include "codegen/fw-kernel-package.h"
#include "io/fw-file-write.h"
#include "io/fw-progress.h"
#include "onnx/fw-onnx.h"
#include "plan/fw-decisions.h"
#include "report/fw-exec-report.h"
#include "report/fw-model-report.h"
#include "report/fw-plan-report.h"
#include "report/fw-superkernel-report.h"

/* Protobuf messages stop at 2 GiB: models with more than this in weights keep them beside the model. */
#define EXTERNAL_DATA_BYTES (G_GUINT64_CONSTANT (1) << 30)

struct _FwExport
{
  GObject          parent_instance;
  FwModel         *model;
  FwPlan          *plan;
  char            *dir;
  FwExportOptions  options;
  char            *cache_dir;
  FwProgress       progress;
  GMainContext    *context;
  GPtrArray       *written;
};

G_DEFINE_FINAL_TYPE (FwExport, fw_export, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FRACTION,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

void
fw_export_options_init (FwExportOptions *options)
{
  memset (options, 0, sizeof *options);
  options->fused_model = options->whitelist = options->kernels = options->report = TRUE;
  options->host = options->ascend = TRUE;
}

static void
fw_export_finalize (GObject *object)
{
  FwExport *self = FW_EXPORT (object);

  g_clear_object (&self->model);
  g_clear_pointer (&self->dir, g_free);
  g_clear_pointer (&self->cache_dir, g_free);
  g_clear_pointer (&self->written, g_ptr_array_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  fw_progress_clear (&self->progress);
  G_OBJECT_CLASS (fw_export_parent_class)->finalize (object);
}

static void
fw_export_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwExport *self = FW_EXPORT (object);

  if (!fw_progress_get_property (&self->progress, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
fw_export_class_init (FwExportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fw_export_finalize;
  object_class->get_property = fw_export_get_property;
  fw_progress_pspecs (&properties[PROP_FRACTION], &properties[PROP_MESSAGE]);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fw_export_init (FwExport *self)
{
  fw_progress_init (&self->progress, properties[PROP_FRACTION], properties[PROP_MESSAGE]);
  self->written = g_ptr_array_new_with_free_func (g_free);
}

FwExport *
fw_export_new (FwModel *model, FwPlan *plan, const char *dir, const FwExportOptions *options)
{
  FwExport *self;

  g_return_val_if_fail (FW_IS_MODEL (model), NULL);
  g_return_val_if_fail (plan != NULL, NULL);
  g_return_val_if_fail (dir != NULL, NULL);

  self = g_object_new (FW_TYPE_EXPORT, NULL);
  self->model = g_object_ref (model);
  self->plan = plan;
  self->dir = g_strdup (dir);
  if (options != NULL)
    self->options = *options;
  else
    fw_export_options_init (&self->options);
  self->cache_dir = g_strdup (self->options.cache_dir);
  self->options.cache_dir = self->cache_dir;
  return self;
}

gdouble
fw_export_get_fraction (FwExport *self)
{
  g_return_val_if_fail (FW_IS_EXPORT (self), 0.0);
  return self->progress.fraction;
}

const char *
fw_export_get_message (FwExport *self)
{
  g_return_val_if_fail (FW_IS_EXPORT (self), NULL);
  return self->progress.message;
}

GPtrArray *
fw_export_get_written (FwExport *self)
{
  g_return_val_if_fail (FW_IS_EXPORT (self), NULL);
  return self->written;
}

static void
report (FwExport *self, gdouble fraction, const char *message)
{
  fw_progress_report (G_OBJECT (self), &self->progress, self->context, fraction, message);
}

/* The model's file name without its .onnx extension. */
static char *
model_stem (FwModel *model)
{
  const char *path = fw_model_get_path (model);
  char *stem = g_path_get_basename (path != NULL ? path : "model.onnx");

  if (g_str_has_suffix (stem, ".onnx") && strlen (stem) > 5)
    stem[strlen (stem) - 5] = '\0';
  return stem;
}

char *
fw_export_file_name (FwModel *model, FwExportPart part)
{
  static const char * const suffixes[] = {
    [FW_EXPORT_FUSED_MODEL] = ".fused.onnx",
    [FW_EXPORT_WHITELIST] = ".fusion.yaml",
    [FW_EXPORT_REPORT_JSON] = ".report.json",
    [FW_EXPORT_REPORT_MARKDOWN] = ".report.md",
  };
  g_autofree char *stem = NULL;

  g_return_val_if_fail (FW_IS_MODEL (model), NULL);
  g_return_val_if_fail (part <= FW_EXPORT_REPORT_MARKDOWN, NULL);

  if (part == FW_EXPORT_KERNELS)
    return g_strdup ("kernels");
  stem = model_stem (model);
  return g_strconcat (stem, suffixes[part], NULL);
}

char *
fw_export_default_folder (FwModel *model)
{
  const char *path;
  g_autofree char *stem = NULL, *dir = NULL, *name = NULL;

  g_return_val_if_fail (FW_IS_MODEL (model), NULL);

  path = fw_model_get_path (model);
  stem = model_stem (model);
  dir = g_path_get_dirname (path != NULL ? path : ".");
  name = g_strconcat (stem, "-export", NULL);
  return g_build_filename (dir, name, NULL);
}

/* DIR/NAME of a part, refusing any path that is the input model or one of its data files. */
static char *
export_path (FwExport *self, FwExportPart part, GError **error)
{
  g_autofree char *name = fw_export_file_name (self->model, part);
  char *path = g_build_filename (self->dir, name, NULL);

  if (fw_model_is_source_file (self->model, path))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                   _("%s: refusing to overwrite the input model or its external data; choose another folder"), path);
      g_free (path);
      return NULL;
    }
  return path;
}

typedef struct
{
  FwExport *self;
  gdouble   from;
  gdouble   to;
} Span;

static void
on_compiled (guint done, guint total, gpointer data)
{
  Span *span = data;
  g_autofree char *message = g_strdup_printf (_("Compiling SuperKernels (%u of %u)…"), done, total);

  report (span->self, span->from + (span->to - span->from) * (total > 0 ? (gdouble) done / total : 1.0), message);
}

static gboolean
write_report (FwExport *self, FwTargets *targets, const char *json_path, const char *md_path, GError **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  g_autofree char *md = NULL;

  if (self->options.model_report != NULL)
    root = json_node_copy (self->options.model_report);
  else
    root = fw_model_report_build (self->model, NULL, NULL, NULL);
  fw_plan_report_add (root, self->plan);
  if (self->options.superkernel != NULL)
    fw_superkernel_report_add (root, self->options.superkernel);
  fw_exec_report_add (root, self->plan, targets, self->options.verify, self->options.measure);
  json = fw_model_report_format (root, FW_REPORT_JSON);
  md = fw_model_report_format (root, FW_REPORT_MARKDOWN);
  return fw_file_write (json_path, json, -1, error) && fw_file_write (md_path, md, -1, error);
}

gboolean
fw_export_run (FwExport *self, GCancellable *cancellable, GError **error)
{
  const FwExportOptions *o;
  g_autofree char *fused_path = NULL, *whitelist_path = NULL, *kernels_dir = NULL;
  g_autofree char *json_path = NULL, *md_path = NULL;
  g_autoptr(FwTargets) own_targets = NULL;
  FwTargets *targets;
  gboolean want_targets;

  g_return_val_if_fail (FW_IS_EXPORT (self), FALSE);

  o = &self->options;
  g_ptr_array_set_size (self->written, 0);
  if (!o->fused_model && !o->whitelist && !o->kernels && !o->report)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("nothing to export: choose at least one of the fused model, "
                                                      "the whitelist, the kernels and the report"));
      return FALSE;
    }
  /* Every name is checked before anything is written: a refused export leaves the folder as it was. */
  if ((fused_path = export_path (self, FW_EXPORT_FUSED_MODEL, error)) == NULL ||
      (whitelist_path = export_path (self, FW_EXPORT_WHITELIST, error)) == NULL ||
      (kernels_dir = export_path (self, FW_EXPORT_KERNELS, error)) == NULL ||
      (json_path = export_path (self, FW_EXPORT_REPORT_JSON, error)) == NULL ||
      (md_path = export_path (self, FW_EXPORT_REPORT_MARKDOWN, error)) == NULL)
    return FALSE;
  if (o->kernels && !fw_kernel_package_check_destination (self->plan, kernels_dir, error))
    return FALSE;

  fw_progress_begin (G_OBJECT (self), &self->progress, self->context, _("Exporting…"));
  if (g_mkdir_with_parents (self->dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot create the export folder: %s"), self->dir,
                   g_strerror (saved));
      return FALSE;
    }
  if (o->fused_model)
    {
      FwOnnxWriteFlags flags = FW_ONNX_WRITE_DEFAULT;

      report (self, 0.02, _("Writing the fused model…"));
      if (fw_model_get_initializer_bytes (self->model) > EXTERNAL_DATA_BYTES)
        flags |= FW_ONNX_WRITE_EXTERNAL_DATA;
      if (!fw_fused_model_write (self->plan, fused_path, flags, error))
        return FALSE;
      g_ptr_array_add (self->written, g_strdup (fused_path));
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (o->whitelist)
    {
      const char *model_path = fw_model_get_path (self->model);
      g_autofree char *base = g_path_get_basename (model_path != NULL ? model_path : "model.onnx");
      g_autoptr(FwWhitelist) out = fw_whitelist_from_plan (self->plan, base);

      report (self, 0.2, _("Writing the whitelist…"));
      if (!fw_whitelist_save (out, whitelist_path, error))
        return FALSE;
      g_ptr_array_add (self->written, g_strdup (whitelist_path));
    }
  /* The report lists the kernels too, so it builds them when they are not given. */
  want_targets = (o->kernels || o->report) && (o->host || o->ascend);
  targets = o->targets;
  if (targets == NULL && want_targets)
    {
      Span span = { self, 0.25, 0.85 };

      report (self, 0.25, _("Generating SuperKernels…"));
      own_targets = fw_targets_build_full (self->plan, o->host, o->ascend, o->cache_dir, on_compiled, &span,
                                           cancellable, error);
      if (own_targets == NULL)
        return FALSE;
      targets = own_targets;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (o->kernels && targets != NULL)
    {
      report (self, 0.88, _("Writing the kernel package…"));
      if (!fw_fused_model_write_kernel_package_with_scopes (self->plan, targets, o->superkernel, kernels_dir, error))
        return FALSE;
      g_ptr_array_add (self->written, g_strdup (kernels_dir));
    }
  if (o->report)
    {
      report (self, 0.95, _("Writing the report…"));
      if (!write_report (self, targets, json_path, md_path, error))
        return FALSE;
      g_ptr_array_add (self->written, g_strdup (json_path));
      g_ptr_array_add (self->written, g_strdup (md_path));
    }
  report (self, 1.0, _("Export finished"));
  return TRUE;
}

static void
run_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  FwExport *self = source;
  GError *error = NULL;

  if (fw_export_run (self, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
fw_export_run_async (FwExport *self, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (FW_IS_EXPORT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, fw_export_run_async);
  g_clear_pointer (&self->context, g_main_context_unref);
  self->context = g_main_context_ref_thread_default ();
  g_task_run_in_thread (task, run_thread);
}

gboolean
fw_export_run_finish (FwExport *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
