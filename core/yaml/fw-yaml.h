/* fw-yaml.h: YAML documents as a small tree that remembers where each node was, for the rule, profile,
 * whitelist and session readers. Every error they report says file:line:column.
 *
 * Hostile input is expected: anchors and aliases are refused (no billion laughs), nesting, node count and
 * scalar length are capped, duplicate keys are errors. Only the first document of a stream is read. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  FW_YAML_SCALAR,
  FW_YAML_SEQUENCE,
  FW_YAML_MAPPING,
} FwYamlKind;

typedef struct _FwYamlNode FwYamlNode;

struct _FwYamlNode
{
  FwYamlKind  kind;
  guint       line;     /* 1-based */
  guint       column;   /* 1-based */
  char       *scalar;   /* SCALAR: the text */
  gboolean    plain;    /* SCALAR: unquoted, so `yes`, `12` and `~` may be typed */
  GPtrArray  *items;    /* SEQUENCE: nodes; MAPPING: key, value, key, value… */
};

typedef struct
{
  char       *filename; /* as shown in errors */
  FwYamlNode *root;     /* NULL for an empty document */
} FwYamlDocument;

#define FW_YAML_MAX_BYTES   (16 * 1024 * 1024)
#define FW_YAML_MAX_DEPTH   64
#define FW_YAML_MAX_NODES   1000000
#define FW_YAML_MAX_SCALAR  (64 * 1024)

FwYamlDocument   *fw_yaml_load_file       (const char            *path,
                                           GError               **error);
FwYamlDocument   *fw_yaml_load_data       (const char            *display_name,
                                           const char            *data,
                                           gsize                  len,
                                           GError               **error);
void              fw_yaml_document_free   (FwYamlDocument        *doc);
/* Whether a file name is one a FILE|DIR option reads from a folder: *.yaml or *.yml, not hidden. */
gboolean          fw_yaml_is_yaml_name    (const char            *name);
/* The files a FILE|DIR option names: the file itself, or a folder's *.yaml and *.yml files (not hidden
 * ones) in name order. Paths owned by the array; NULL with an FW_ERROR_IO error for an unreadable folder. */
GPtrArray        *fw_yaml_list_files      (const char            *file_or_dir,
                                           GError               **error);
/* Reads a document's entries; NULL with an error naming the file and place. */
typedef GPtrArray *(*FwYamlEntriesParser) (const FwYamlDocument *doc, GError **error);
/* Every file a FILE|DIR option names, each parsed by `parse`: an array of the per-file entry arrays, in
 * file order, so a caller can check them all before taking any (a bad file changes nothing). */
GPtrArray        *fw_yaml_parse_files     (const char            *file_or_dir,
                                           FwYamlEntriesParser    parse,
                                           GError               **error);

/* Sets an FW_ERROR_PARSE error "FILE:LINE:COL: message" at node (or at the document start if NULL). */
gboolean          fw_yaml_error           (GError               **error,
                                           const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           const char            *format,
                                           ...) G_GNUC_PRINTF (4, 5);
const char       *fw_yaml_kind_name       (FwYamlKind             kind);
gboolean          fw_yaml_expect          (const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           FwYamlKind             kind,
                                           const char            *what,
                                           GError               **error);
/* Value node of key in a mapping, NULL if absent. */
const FwYamlNode *fw_yaml_get             (const FwYamlNode      *mapping,
                                           const char            *key);
/* Refuses keys outside allowed (NULL-terminated), naming the closest allowed key. */
gboolean          fw_yaml_check_keys      (const FwYamlDocument  *doc,
                                           const FwYamlNode      *mapping,
                                           const char * const    *allowed,
                                           GError               **error);
/* Levenshtein distance, for "did you mean" suggestions; G_MAXUINT for words over 64 bytes. */
guint             fw_yaml_edit_distance   (const char            *a,
                                           const char            *b);
/* Scalar readers: type and range checked, with the place in errors. */
gboolean          fw_yaml_get_string      (const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           const char           **out,
                                           GError               **error);
gboolean          fw_yaml_get_int         (const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           gint64                 min,
                                           gint64                 max,
                                           gint64                *out,
                                           GError               **error);
gboolean          fw_yaml_get_double      (const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           double                 min,
                                           double                 max,
                                           double                *out,
                                           GError               **error);
gboolean          fw_yaml_get_bool        (const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           gboolean              *out,
                                           GError               **error);
/* Reads byte sizes and rates written with units: "192 KiB", "1.6 TB/s", "354 TFLOP/s", "5 us"; or plain
 * numbers. unit_kind: "bytes", "bytes/s", "flop/s", "s". */
gboolean          fw_yaml_get_quantity    (const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           const char            *unit_kind,
                                           double                *out,
                                           GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwYamlDocument, fw_yaml_document_free)

G_END_DECLS
