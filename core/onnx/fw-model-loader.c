#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-model-loader.h"
#include "fw-onnx.h"
#include "io/fw-progress.h"

/* Parsing is most of the work; inference gets the last tenth of the bar. */
#define PARSE_SHARE 0.9

struct _FwModelLoader
{
  GObject        parent_instance;
  char          *path;
  GHashTable    *bindings;
  guint          max_nodes;
  guint          max_depth;
  guint64        max_alloc;
  FwProgress     progress;
  FwInferReport  report;
  GStrv          symbols;
  GMainContext  *notify_context;  /* set while an async load runs */
};

enum {
  PROP_0,
  PROP_PATH,
  PROP_FRACTION,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FwModelLoader, fw_model_loader, G_TYPE_OBJECT)

static void
fw_model_loader_finalize (GObject *object)
{
  FwModelLoader *self = FW_MODEL_LOADER (object);

  g_clear_pointer (&self->bindings, g_hash_table_unref);
  g_clear_pointer (&self->path, g_free);
  fw_progress_clear (&self->progress);
  g_clear_pointer (&self->symbols, g_strfreev);
  fw_infer_report_clear (&self->report);
  G_OBJECT_CLASS (fw_model_loader_parent_class)->finalize (object);
}

static void
fw_model_loader_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwModelLoader *self = FW_MODEL_LOADER (object);

  if (fw_progress_get_property (&self->progress, pspec, value))
    return;
  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_model_loader_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwModelLoader *self = FW_MODEL_LOADER (object);

  switch (prop_id)
    {
    case PROP_PATH:
      self->path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_model_loader_class_init (FwModelLoaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fw_model_loader_finalize;
  object_class->get_property = fw_model_loader_get_property;
  object_class->set_property = fw_model_loader_set_property;

  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  fw_progress_pspecs (&properties[PROP_FRACTION], &properties[PROP_MESSAGE]);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fw_model_loader_init (FwModelLoader *self)
{
  fw_infer_report_init (&self->report);
  fw_progress_init (&self->progress, properties[PROP_FRACTION], properties[PROP_MESSAGE]);
}

FwModelLoader *
fw_model_loader_new (const char *path)
{
  g_return_val_if_fail (path != NULL, NULL);
  return g_object_new (FW_TYPE_MODEL_LOADER, "path", path, NULL);
}

const char *
fw_model_loader_get_path (FwModelLoader *self)
{
  g_return_val_if_fail (FW_IS_MODEL_LOADER (self), NULL);
  return self->path;
}

void
fw_model_loader_set_bindings (FwModelLoader *self, GHashTable *bindings)
{
  g_return_if_fail (FW_IS_MODEL_LOADER (self));
  if (bindings)
    g_hash_table_ref (bindings);
  g_clear_pointer (&self->bindings, g_hash_table_unref);
  self->bindings = bindings;
}

void
fw_model_loader_set_limits (FwModelLoader *self, guint max_nodes, guint max_depth)
{
  g_return_if_fail (FW_IS_MODEL_LOADER (self));
  self->max_nodes = max_nodes;
  self->max_depth = max_depth;
}

void
fw_model_loader_set_max_alloc (FwModelLoader *self, guint64 bytes)
{
  g_return_if_fail (FW_IS_MODEL_LOADER (self));
  self->max_alloc = bytes;
}

gdouble
fw_model_loader_get_fraction (FwModelLoader *self)
{
  g_return_val_if_fail (FW_IS_MODEL_LOADER (self), 0.0);
  return self->progress.fraction;
}

const char *
fw_model_loader_get_message (FwModelLoader *self)
{
  g_return_val_if_fail (FW_IS_MODEL_LOADER (self), NULL);
  return self->progress.message;
}

const char * const *
fw_model_loader_get_symbols (FwModelLoader *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (FW_IS_MODEL_LOADER (self), NULL);
  return self->symbols ? (const char * const *) self->symbols : none;
}

const FwInferReport *
fw_model_loader_get_infer_report (FwModelLoader *self)
{
  g_return_val_if_fail (FW_IS_MODEL_LOADER (self), NULL);
  return &self->report;
}

static void
report_progress (FwModelLoader *self, gdouble fraction, const char *message)
{
  fw_progress_report (G_OBJECT (self), &self->progress, self->notify_context, fraction, message);
}

static void
on_parse_progress (gdouble fraction, gpointer user_data)
{
  report_progress (user_data, fraction * PARSE_SHARE, NULL);
}

static FwModel *
load (FwModelLoader *self, GCancellable *cancellable, GError **error)
{
  FwOnnxLoadOptions options = {
    .max_nodes = self->max_nodes,
    .max_depth = self->max_depth,
    .progress = on_parse_progress,
    .progress_data = self,
    .max_alloc_bytes = self->max_alloc,
  };
  FwInferOptions infer = { self->bindings, 0 };
  g_autoptr(FwModel) model = NULL;

  report_progress (self, 0.0, _("Loading model…"));
  model = fw_onnx_load (self->path, &options, cancellable, error);
  if (model == NULL)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  /* Bindings make dims static, so the model's own symbols are read before inference. */
  g_clear_pointer (&self->symbols, g_strfreev);
  self->symbols = fw_graph_collect_symbols (fw_model_get_graph (model));
  report_progress (self, PARSE_SHARE, _("Inferring shapes…"));
  fw_infer_report_clear (&self->report);
  fw_infer_report_init (&self->report);
  if (!fw_shape_infer_graph (fw_model_get_graph (model), &infer, &self->report, error))
    {
      g_prefix_error (error, "%s: ", self->path);
      return NULL;
    }
  report_progress (self, 1.0, _("Model loaded"));
  return g_steal_pointer (&model);
}

FwModel *
fw_model_loader_load (FwModelLoader *self, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (FW_IS_MODEL_LOADER (self), NULL);
  return load (self, cancellable, error);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  FwModel *model = load (source, cancellable, &error);

  if (model == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, model, g_object_unref);
}

static void
load_done (GObject *source, GParamSpec *pspec, gpointer user_data)
{
  FwModelLoader *self = FW_MODEL_LOADER (source);
  g_clear_pointer (&self->notify_context, g_main_context_unref);
}

void
fw_model_loader_load_async (FwModelLoader *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (FW_IS_MODEL_LOADER (self));
  g_return_if_fail (self->notify_context == NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, fw_model_loader_load_async);
  self->notify_context = g_main_context_ref_thread_default ();
  g_signal_connect_object (task, "notify::completed", G_CALLBACK (load_done), self, G_CONNECT_SWAPPED);
  g_task_run_in_thread (task, load_thread);
}

FwModel *
fw_model_loader_load_finish (FwModelLoader *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (FW_IS_MODEL_LOADER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
