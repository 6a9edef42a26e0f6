/* fw-kernel-source.h: what a code generator made for one fused candidate, whatever the target: the kernel's
 * name, its files (the first is the kernel itself), the tensors it reads and writes in argument order, and
 * notes about how it was made. Every target's kernel carries one; fw-targets.c, the kernel package, reports
 * and the inspector read kernels through it. */
#pragma once

#include <glib.h>

#include "graph/fw-graph.h"

G_BEGIN_DECLS

typedef struct
{
  const char *name;       /* relative path inside the target's folder */
  const char *contents;
} FwKernelFile;

typedef struct _FwKernelSource FwKernelSource;

FwKernelSource     *fw_kernel_source_new          (const char     *target,
                                                   const char     *name);
void                fw_kernel_source_free         (FwKernelSource *source);
/* Takes both strings. */
void                fw_kernel_source_take_file    (FwKernelSource *source,
                                                   char           *name,
                                                   char           *contents);
void                fw_kernel_source_add_input    (FwKernelSource *source,
                                                   FwValue        *value);
void                fw_kernel_source_add_output   (FwKernelSource *source,
                                                   FwValue        *value);
/* Takes the message. */
void                fw_kernel_source_take_message (FwKernelSource *source,
                                                   char           *message);

const char         *fw_kernel_source_get_target   (const FwKernelSource *source);  /* "host", "ascend" */
const char         *fw_kernel_source_get_name     (const FwKernelSource *source);
guint               fw_kernel_source_get_n_files  (const FwKernelSource *source);
const FwKernelFile *fw_kernel_source_get_file     (const FwKernelSource *source,
                                                   guint                 index);
/* The contents of the file named name, or NULL. */
const char         *fw_kernel_source_lookup_file  (const FwKernelSource *source,
                                                   const char           *name);
/* The kernel's own source: the first file. */
const char         *fw_kernel_source_get_main     (const FwKernelSource *source);
guint               fw_kernel_source_get_n_inputs (const FwKernelSource *source);
FwValue            *fw_kernel_source_get_input    (const FwKernelSource *source,
                                                   guint                 index);
guint               fw_kernel_source_get_n_outputs (const FwKernelSource *source);
FwValue            *fw_kernel_source_get_output   (const FwKernelSource *source,
                                                   guint                 index);
guint               fw_kernel_source_get_n_messages (const FwKernelSource *source);
const char         *fw_kernel_source_get_message  (const FwKernelSource *source,
                                                   guint                 index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwKernelSource, fw_kernel_source_free)

G_END_DECLS
