/* fw-kernel-source.c: one generated kernel, target-neutral. */
#include "config.h"

#include <string.h>

#include "fw-kernel-source.h"

struct _FwKernelSource
{
  char      *target;
  char      *name;
  GArray    *files;     /* FwKernelFile, both strings owned */
  GPtrArray *inputs;    /* FwValue* */
  GPtrArray *outputs;   /* FwValue* */
  GPtrArray *messages;  /* char*, owned */
};

static void
file_clear (gpointer data)
{
  FwKernelFile *f = data;

  g_free ((char *) f->name);
  g_free ((char *) f->contents);
}

FwKernelSource *
fw_kernel_source_new (const char *target, const char *name)
{
  FwKernelSource *source = g_new0 (FwKernelSource, 1);

  source->target = g_strdup (target);
  source->name = g_strdup (name);
  source->files = g_array_new (FALSE, TRUE, sizeof (FwKernelFile));
  g_array_set_clear_func (source->files, file_clear);
  source->inputs = g_ptr_array_new ();
  source->outputs = g_ptr_array_new ();
  source->messages = g_ptr_array_new_with_free_func (g_free);
  return source;
}

void
fw_kernel_source_free (FwKernelSource *source)
{
  if (source == NULL)
    return;
  g_free (source->target);
  g_free (source->name);
  g_array_unref (source->files);
  g_ptr_array_unref (source->inputs);
  g_ptr_array_unref (source->outputs);
  g_ptr_array_unref (source->messages);
  g_free (source);
}

void
fw_kernel_source_take_file (FwKernelSource *source, char *name, char *contents)
{
  FwKernelFile f = { name, contents };

  g_array_append_val (source->files, f);
}

void
fw_kernel_source_add_input (FwKernelSource *source, FwValue *value)
{
  g_ptr_array_add (source->inputs, value);
}

void
fw_kernel_source_add_output (FwKernelSource *source, FwValue *value)
{
  g_ptr_array_add (source->outputs, value);
}

void
fw_kernel_source_take_message (FwKernelSource *source, char *message)
{
  g_ptr_array_add (source->messages, message);
}

const char *
fw_kernel_source_get_target (const FwKernelSource *source)
{
  return source->target;
}

const char *
fw_kernel_source_get_name (const FwKernelSource *source)
{
  return source->name;
}

guint
fw_kernel_source_get_n_files (const FwKernelSource *source)
{
  return source->files->len;
}

const FwKernelFile *
fw_kernel_source_get_file (const FwKernelSource *source, guint index)
{
  g_return_val_if_fail (index < source->files->len, NULL);
  return &g_array_index (source->files, FwKernelFile, index);
}

const char *
fw_kernel_source_lookup_file (const FwKernelSource *source, const char *name)
{
  for (guint i = 0; i < source->files->len; i++)
    if (strcmp (g_array_index (source->files, FwKernelFile, i).name, name) == 0)
      return g_array_index (source->files, FwKernelFile, i).contents;
  return NULL;
}

const char *
fw_kernel_source_get_main (const FwKernelSource *source)
{
  return source->files->len > 0 ? g_array_index (source->files, FwKernelFile, 0).contents : NULL;
}

guint
fw_kernel_source_get_n_inputs (const FwKernelSource *source)
{
  return source->inputs->len;
}

FwValue *
fw_kernel_source_get_input (const FwKernelSource *source, guint index)
{
  g_return_val_if_fail (index < source->inputs->len, NULL);
  return g_ptr_array_index (source->inputs, index);
}

guint
fw_kernel_source_get_n_outputs (const FwKernelSource *source)
{
  return source->outputs->len;
}

FwValue *
fw_kernel_source_get_output (const FwKernelSource *source, guint index)
{
  g_return_val_if_fail (index < source->outputs->len, NULL);
  return g_ptr_array_index (source->outputs, index);
}

guint
fw_kernel_source_get_n_messages (const FwKernelSource *source)
{
  return source->messages->len;
}

const char *
fw_kernel_source_get_message (const FwKernelSource *source, guint index)
{
  g_return_val_if_fail (index < source->messages->len, NULL);
  return g_ptr_array_index (source->messages, index);
}
