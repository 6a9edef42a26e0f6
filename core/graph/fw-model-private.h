#pragma once

#include "fw-model.h"
#include "fw-graph-private.h"

G_BEGIN_DECLS

/* A top-level ModelProto field we do not interpret (functions, training_info, configuration), kept as
 * encoded bytes so a round trip preserves it. */
typedef struct
{
  guint32  field;
  GBytes  *bytes;
} FwRawField;

struct _FwModel
{
  GObject       parent_instance;
  char         *path;
  GMappedFile  *mapped;
  GHashTable   *external_maps;   /* resolved path → GMappedFile */
  guint64       file_size;
  FwGraph      *graph;
  gint64        ir_version;
  GArray       *opsets;          /* FwOpsetImport, domains interned in graph strings */
  const char   *producer_name;
  const char   *producer_version;
  const char   *domain;
  gint64        model_version;
  const char   *doc_string;
  GPtrArray    *metadata_props;  /* char* key, value, key, value… */
  GArray       *raw_fields;      /* FwRawField */
};

void fw_model_take_graph (FwModel *self, FwGraph *graph);
void fw_model_set_path   (FwModel *self, const char *path);

G_END_DECLS
