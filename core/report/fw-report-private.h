/* fw-report-private.h: what the report writers share. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>

#include "codegen/host/fw-superkernel.h"

G_BEGIN_DECLS

/* One member of the object being built per call, so the writers read as the schema does. */

static inline void
fw_json_member_int (JsonBuilder *b, const char *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static inline void
fw_json_member_bool (JsonBuilder *b, const char *name, gboolean value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, value);
}

/* null when value is NULL. */
static inline void
fw_json_member_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

/* JSON has no NaN or infinity: an unknown or unbounded figure is null. */
static inline void
fw_json_member_double (JsonBuilder *b, const char *name, gdouble value)
{
  json_builder_set_member_name (b, name);
  if (isfinite (value))
    json_builder_add_double_value (b, value);
  else
    json_builder_add_null_value (b);
}

/* Appends text as one Markdown table cell: pipes escaped and newlines flattened, so a model's names cannot
 * break the table. */
void fw_markdown_append_cell (GString *md, const char *text);

/* fw-exec-report.c: member "producer" of a host kernel (nothing when it has no compute root): oneDNN's
 * version, ISA and chosen implementation, or the fallback and why. */
void fw_report_add_host_producer (JsonBuilder *b, const FwSuperKernelProducer *p);

G_END_DECLS
