/* fw-decision-yaml-private.h: what the two YAML files of decisions share, team whitelists (fw-whitelist.c)
 * and sessions (core/session/fw-session.c): a versioned root, the model by path and fingerprint, accept or
 * veto with node lists, who and why, read with the place of every error and written back with every string
 * double-quoted. The messages stay each file's own where they differ, so their translations do too. */
#pragma once

#include <glib.h>

#include "fw-decisions.h"
#include "yaml/fw-yaml.h"

G_BEGIN_DECLS

/* Checks that doc's root is a mapping with no keys outside keys and "version: 1". what names the file in
 * errors (“the session”); empty is the whole error for a document without a root. */
gboolean fw_decision_yaml_check_root      (const FwYamlDocument  *doc,
                                           const char            *what,
                                           const char            *empty,
                                           const char * const    *keys,
                                           GError               **error);
/* A SHA-256 in hexadecimal, stored in lower case. */
gboolean fw_decision_yaml_get_fingerprint (const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           char                 **out,
                                           GError               **error);
/* The string under key in mapping, replacing *out; *out stays as it is when the key is absent. */
gboolean fw_decision_yaml_get_optional    (const FwYamlDocument  *doc,
                                           const FwYamlNode      *mapping,
                                           const char            *key,
                                           char                 **out,
                                           GError               **error);
/* The "model" mapping: its keys path_key and "fingerprint". missing_fingerprint is the error when there is
 * no fingerprint, NULL when it may be left out. */
gboolean fw_decision_yaml_read_model      (const FwYamlDocument  *doc,
                                           const FwYamlNode      *model,
                                           const char            *path_key,
                                           const char            *missing_fingerprint,
                                           char                 **path,
                                           char                 **fingerprint,
                                           GError               **error);
/* "accept" or "veto"; FALSE for anything else, which the caller reports under its own key. */
gboolean fw_decision_yaml_action_from_name (const char           *name,
                                            FwDecisionAction     *action);
/* The node names of one fusion: a sequence of 1 to max_nodes strings, as a new *out. */
gboolean fw_decision_yaml_get_nodes       (const FwYamlDocument  *doc,
                                           const FwYamlNode      *nodes,
                                           guint                  max_nodes,
                                           GStrv                 *out,
                                           GError               **error);
/* A SuperKernel scope (fw-superkernel-decisions.c): a name-scope prefix as a plain string, or a mapping of
 * "name", exactly one of "scope" and "nodes", "who" and "why" (removal: "name" alone, with who and why).
 * *out is set (the caller frees it) whenever it was begun, also on failure. */
gboolean fw_decision_yaml_read_scope      (const FwYamlDocument  *doc,
                                           const FwYamlNode      *node,
                                           gboolean               removal,
                                           FwSkUserScope        **out,
                                           GError               **error);
/* "INDENT- name: …" (item) or "INDENTname: …" and the scope's other keys below it. */
void     fw_decision_yaml_append_scope    (GString               *out,
                                           const char            *indent,
                                           gboolean               item,
                                           const FwSkUserScope   *scope);

/* A double-quoted YAML scalar. */
void     fw_decision_yaml_append_quoted   (GString               *out,
                                           const char            *text);
/* "INDENTkey: "value"" and a newline; nothing when value is NULL. */
void     fw_decision_yaml_append_field    (GString               *out,
                                           const char            *indent,
                                           const char            *key,
                                           const char            *value);
/* One "INDENT- "name"" line per name of the NULL-terminated names, which may be NULL. */
void     fw_decision_yaml_append_list     (GString               *out,
                                           const char            *indent,
                                           const char * const    *names);

G_END_DECLS
