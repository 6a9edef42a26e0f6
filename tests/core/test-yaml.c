/* test-yaml.c: the YAML reader under hostile input, and its typed readers. */
#include "config.h"

#include <string.h>

#include "fw-error.h"
#include "yaml/fw-yaml.h"

static FwYamlDocument *
load (const char *text, GError **error)
{
  return fw_yaml_load_data ("t.yaml", text, strlen (text), error);
}

/* The error must name the place; line and column are checked as the "t.yaml:L:C: " prefix. */
static void
assert_error_at (GError *error, const char *prefix, const char *needle)
{
  g_assert_nonnull (error);
  g_assert_true (error->domain == FW_ERROR);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, needle) == NULL)
    g_error ("expected “%s…%s…”, got “%s”", prefix, needle, error->message);
}

static void
test_billion_laughs (void)
{
  const char *text =
    "a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load (text, &error);

  g_assert_null (doc);
  assert_error_at (error, "t.yaml:1:4: ", "anchors");
}

static void
test_alias_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load ("a: 1\nb: *a\n", &error);

  g_assert_null (doc);
  assert_error_at (error, "t.yaml:2:4: ", "aliases");
}

static void
test_anchor_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load ("a: &x 1\n", &error);
  g_autoptr(FwYamlDocument) doc2 = NULL;

  g_assert_null (doc);
  assert_error_at (error, "t.yaml:1:4: ", "anchors");
  g_clear_error (&error);
  /* On a collection as well as a scalar. */
  doc2 = load ("a: &x {b: 1}\n", &error);
  g_assert_null (doc2);
  assert_error_at (error, "t.yaml:1:4: ", "anchors");
}

static void
test_tab_indentation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load ("a:\n  b: 1\n\tc: 2\n", &error);

  g_assert_null (doc);
  assert_error_at (error, "t.yaml:3:", "");
}

static void
test_bom_accepted (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load ("\xef\xbb\xbfkey: value\n", &error);
  const FwYamlNode *value;

  g_assert_no_error (error);
  g_assert_nonnull (doc->root);
  value = fw_yaml_get (doc->root, "key");
  g_assert_nonnull (value);
  g_assert_cmpstr (value->scalar, ==, "value");
  g_assert_cmpuint (value->line, ==, 1);
}

static void
test_huge_scalar (void)
{
  gsize n = 10 * 1000 * 1000;
  g_autofree char *text = g_malloc (n + 8);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = NULL;

  memcpy (text, "k: ", 3);
  memset (text + 3, 'x', n);
  memcpy (text + 3 + n, "\n", 2);
  doc = fw_yaml_load_data ("t.yaml", text, strlen (text), &error);
  g_assert_null (doc);
  assert_error_at (error, "t.yaml:1:4: ", "64 KiB");
}

static void
test_too_large_document (void)
{
  gsize n = FW_YAML_MAX_BYTES + 1;
  g_autofree char *text = g_malloc (n);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = NULL;

  memset (text, '#', n);
  doc = fw_yaml_load_data ("t.yaml", text, n, &error);
  g_assert_null (doc);
  g_assert_error (error, FW_ERROR, FW_ERROR_LIMIT);
}

static void
test_deep_nesting (void)
{
  GString *text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = NULL;

  for (guint i = 0; i < 1000; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < 1000; i++)
    g_string_append_c (text, ']');
  g_string_append_c (text, '\n');
  doc = fw_yaml_load_data ("t.yaml", text->str, text->len, &error);
  g_string_free (text, TRUE);
  g_assert_null (doc);
  assert_error_at (error, "t.yaml:1:", "nested");
}

static void
test_nesting_at_limit (void)
{
  GString *text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = NULL;

  /* The root is depth 0, so 65 brackets are the deepest a document may go. */
  for (guint i = 0; i <= FW_YAML_MAX_DEPTH; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i <= FW_YAML_MAX_DEPTH; i++)
    g_string_append_c (text, ']');
  doc = fw_yaml_load_data ("t.yaml", text->str, text->len, &error);
  g_string_free (text, TRUE);
  g_assert_no_error (error);
  g_assert_nonnull (doc->root);
}

static void
test_duplicate_keys (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load ("a: 1\nb: 2\na: 3\n", &error);

  g_assert_null (doc);
  assert_error_at (error, "t.yaml:3:1: ", "“a”");
  g_assert_nonnull (strstr (error->message, "line 1"));
}

static void
test_not_utf8 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load ("a: \xff\xfe\n", &error);

  g_assert_null (doc);
  assert_error_at (error, "t.yaml", "UTF-8");
}

static void
test_empty_document (void)
{
  const char *empties[] = { "", "# nothing but a comment\n", "\n\n" };

  for (guint i = 0; i < G_N_ELEMENTS (empties); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwYamlDocument) doc = load (empties[i], &error);

      g_assert_no_error (error);
      g_assert_nonnull (doc);
      g_assert_null (doc->root);
      g_assert_cmpstr (doc->filename, ==, "t.yaml");
    }
}

static void
test_positions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load ("top:\n  inner: [1, two]\n", &error);
  const FwYamlNode *top, *inner, *two;

  g_assert_no_error (error);
  g_assert_cmpint (doc->root->kind, ==, FW_YAML_MAPPING);
  top = fw_yaml_get (doc->root, "top");
  g_assert_cmpint (top->kind, ==, FW_YAML_MAPPING);
  inner = fw_yaml_get (top, "inner");
  g_assert_cmpint (inner->kind, ==, FW_YAML_SEQUENCE);
  g_assert_cmpuint (inner->line, ==, 2);
  g_assert_cmpuint (inner->column, ==, 10);
  g_assert_cmpuint (inner->items->len, ==, 2);
  two = g_ptr_array_index (inner->items, 1);
  g_assert_cmpstr (two->scalar, ==, "two");
  g_assert_cmpuint (two->line, ==, 2);
  g_assert_cmpuint (two->column, ==, 14);
  g_assert_null (fw_yaml_get (top, "absent"));
}

static double
quantity (const char *text, const char *kind, GError **error)
{
  g_autofree char *yaml = g_strdup_printf ("q: %s\n", text);
  g_autoptr(FwYamlDocument) doc = load (yaml, error);
  double v = -1;

  g_assert_nonnull (doc);
  if (!fw_yaml_get_quantity (doc, fw_yaml_get (doc->root, "q"), kind, &v, error))
    return -1;
  return v;
}

static void
test_quantities (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpfloat (quantity ("192 KiB", "bytes", &error), ==, 196608.0);
  g_assert_cmpfloat (quantity ("192 MiB", "bytes", &error), ==, 201326592.0);
  g_assert_cmpfloat (quantity ("192 MB", "bytes", &error), ==, 192e6);
  g_assert_cmpfloat (quantity ("256 B", "bytes", &error), ==, 256.0);
  g_assert_cmpfloat (quantity ("4096", "bytes", &error), ==, 4096.0);
  g_assert_cmpfloat (quantity ("192KiB", "bytes", &error), ==, 196608.0);
  g_assert_cmpfloat (quantity ("1.6 TB/s", "bytes/s", &error), ==, 1.6e12);
  g_assert_cmpfloat (quantity ("204.8 GB/s", "bytes/s", &error), ==, 204.8e9);
  g_assert_cmpfloat (quantity ("354 TFLOP/s", "flop/s", &error), ==, 354e12);
  g_assert_cmpfloat (quantity ("11.4 TFLOP/s", "flop/s", &error), ==, 11.4e12);
  g_assert_cmpfloat_with_epsilon (quantity ("5 us", "s", &error), 5e-6, 1e-18);
  g_assert_cmpfloat_with_epsilon (quantity ("2 ms", "s", &error), 2e-3, 1e-15);
  g_assert_no_error (error);
}

static void
test_quantity_errors (void)
{
  struct { const char *text, *kind, *needle; } cases[] = {
    { "12 XB", "bytes", "unknown unit “XB”" },
    { "1.6 TB", "bytes/s", "unknown unit “TB”" },
    { "5 parsecs", "s", "unknown unit" },
    { "-1 KiB", "bytes", "non-negative" },
    { "many", "bytes", "non-negative" },
    { "1e400 B", "bytes", "non-negative" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_cmpfloat (quantity (cases[i].text, cases[i].kind, &error), ==, -1);
      assert_error_at (error, "t.yaml:1:4: ", cases[i].needle);
    }
}

static void
test_scalar_readers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc =
    load ("n: 42\nbig: 99999999999999999999\nf: 0.5\nb: yes\nq: \"yes\"\ns: text\nl: [1]\n", &error);
  gint64 n;
  double f;
  gboolean b;
  const char *s;

  g_assert_no_error (error);
  g_assert_true (fw_yaml_get_int (doc, fw_yaml_get (doc->root, "n"), 0, 100, &n, &error));
  g_assert_cmpint (n, ==, 42);
  g_assert_false (fw_yaml_get_int (doc, fw_yaml_get (doc->root, "n"), 0, 10, &n, &error));
  assert_error_at (error, "t.yaml:1:4: ", "out of range");
  g_clear_error (&error);
  g_assert_false (fw_yaml_get_int (doc, fw_yaml_get (doc->root, "big"), 0, G_MAXINT64, &n, &error));
  assert_error_at (error, "t.yaml:2:6: ", "whole number");
  g_clear_error (&error);
  g_assert_true (fw_yaml_get_double (doc, fw_yaml_get (doc->root, "f"), 0, 1, &f, &error));
  g_assert_cmpfloat (f, ==, 0.5);
  g_assert_true (fw_yaml_get_bool (doc, fw_yaml_get (doc->root, "b"), &b, &error));
  g_assert_true (b);
  /* A quoted "yes" is text, not a boolean. */
  g_assert_false (fw_yaml_get_bool (doc, fw_yaml_get (doc->root, "q"), &b, &error));
  assert_error_at (error, "t.yaml:5:4: ", "true or false");
  g_clear_error (&error);
  g_assert_true (fw_yaml_get_string (doc, fw_yaml_get (doc->root, "s"), &s, &error));
  g_assert_cmpstr (s, ==, "text");
  g_assert_false (fw_yaml_get_string (doc, fw_yaml_get (doc->root, "l"), &s, &error));
  assert_error_at (error, "t.yaml:7:4: ", "list");
}

static void
test_check_keys (void)
{
  static const char * const allowed[] = { "name", "version", "kind", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = load ("name: x\nnmae: y\n", &error);
  g_autoptr(FwYamlDocument) doc2 = NULL;

  g_assert_false (fw_yaml_check_keys (doc, doc->root, allowed, &error));
  assert_error_at (error, "t.yaml:2:1: ", "did you mean “name”");
  g_clear_error (&error);
  doc2 = load ("zzzzzzzz: 1\n", &error);
  g_assert_false (fw_yaml_check_keys (doc2, doc2->root, allowed, &error));
  assert_error_at (error, "t.yaml:1:1: ", "allowed: name, version, kind");
}

static void
test_missing_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwYamlDocument) doc = fw_yaml_load_file ("/nonexistent/fw-test/profile.yaml", &error);

  g_assert_null (doc);
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/yaml/billion-laughs", test_billion_laughs);
  g_test_add_func ("/core/yaml/alias-refused", test_alias_refused);
  g_test_add_func ("/core/yaml/anchor-refused", test_anchor_refused);
  g_test_add_func ("/core/yaml/tab-indentation", test_tab_indentation);
  g_test_add_func ("/core/yaml/bom-accepted", test_bom_accepted);
  g_test_add_func ("/core/yaml/huge-scalar", test_huge_scalar);
  g_test_add_func ("/core/yaml/too-large-document", test_too_large_document);
  g_test_add_func ("/core/yaml/deep-nesting", test_deep_nesting);
  g_test_add_func ("/core/yaml/nesting-at-limit", test_nesting_at_limit);
  g_test_add_func ("/core/yaml/duplicate-keys", test_duplicate_keys);
  g_test_add_func ("/core/yaml/not-utf8", test_not_utf8);
  g_test_add_func ("/core/yaml/empty-document", test_empty_document);
  g_test_add_func ("/core/yaml/positions", test_positions);
  g_test_add_func ("/core/yaml/quantities", test_quantities);
  g_test_add_func ("/core/yaml/quantity-errors", test_quantity_errors);
  g_test_add_func ("/core/yaml/scalar-readers", test_scalar_readers);
  g_test_add_func ("/core/yaml/check-keys", test_check_keys);
  g_test_add_func ("/core/yaml/missing-file", test_missing_file);
  return g_test_run ();
}
