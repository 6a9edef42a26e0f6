/* Crash-safe writes: every file the program writes goes to a temporary file in the same folder, is flushed
 * and renamed, so a writer killed at any moment leaves the previous file or the new one, never a torn or
 * mixed one. Each writer that exists (ONNX model inline and with external data, whitelist, session, batch
 * report, kernel package) is killed with SIGKILL at a random moment a hundred times while it rewrites a
 * file; after each kill the file must be byte for byte one of the two versions and must load. For the
 * kernel package the file is manifest.json, and loading it means every file it names is there with the
 * SHA-256 it records. The random moments come from a seeded GRand,
 * scaled to how long one write takes here, so the test is reproducible in what it asks and fast anywhere.
 *
 * A killed g_file_set_contents leaves its temporary file behind (NAME.XXXXXX beside NAME): those are counted,
 * checked never to be more than one per kill nor to carry the target's name, and removed.
 *
 * Also: a batch run that writes its report and whitelist into the model's folder leaves the input model and
 * its external data untouched. (fw_onnx_write refusing the input model is in test-onnx-writer.) */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "codegen/fw-kernel-package.h"
#include "codegen/fw-targets.h"
#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"
#include "session/fw-session.h"

#define N_KILLS 100

typedef struct _Case Case;

struct _Case
{
  const char  *what;
  char        *dir;
  char        *path;                        /* the file rewritten */
  const char  *known[3];                    /* base names the writer may leave in dir, NULL-terminated */
  GBytes      *expect[2];                   /* 0: A, 1: B, the bytes at path */
  GBytes      *canonical[2];                /* what loading A and B gives, in a comparable form */
  GBytes      *expect_data[2];              /* the model's external data file, A and B, or NULL */
  gboolean     pair;                        /* a model and its external data: two files, one write */
  /* When not NULL, the writer writes several files and path names the others: a path that is one version
   * but does not load as it is counted as MIXED (what the words say was left) and fails the test at the
   * end, instead of at once. */
  const char  *mixed;
  /* When not NULL, the writer writes a tree under dir: the relative paths of every file and folder either
   * version writes (char* → itself), the only names it may leave besides their temporary files. */
  GHashTable  *tree;
  /* Writes version `which` (0: A, 1: B) to path; FALSE when it failed. Runs in the killed child. */
  gboolean   (*write)     (Case *c, guint which);
  /* Loads path with the program's own loader; a canonical form of what it read, NULL and error if none. */
  GBytes    *(*load)      (Case *c, const char *path, GError **error);
  /* Writer state. */
  FwModel     *model[2];
  FwOnnxWriteFlags flags;
  FwWhitelist *whitelist[2];
  FwSession   *session[2];
  const char  *binary;
  char        *model_path;
  FwPlan      *plan[2];
  FwProfile   *profile;
  FwRuleSet   *rules;
};

static GBytes *
read_bytes (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &data, &len, &error))
    return NULL;
  return g_bytes_new_take (data, len);
}

static void
case_free (Case *c)
{
  fw_test_remove_dir (c->dir);
  g_free (c->dir);
  g_free (c->path);
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&c->expect[i], g_bytes_unref);
      g_clear_pointer (&c->canonical[i], g_bytes_unref);
      g_clear_pointer (&c->expect_data[i], g_bytes_unref);
      g_clear_object (&c->model[i]);
      g_clear_pointer (&c->whitelist[i], fw_whitelist_free);
      g_clear_pointer (&c->session[i], fw_session_free);
      g_clear_pointer (&c->plan[i], fw_plan_free);
    }
  g_clear_pointer (&c->profile, fw_profile_unref);
  g_clear_pointer (&c->rules, fw_rule_set_free);
  g_clear_pointer (&c->tree, g_hash_table_unref);
  g_free (c->model_path);
  g_free (c);
}

/* "model.onnx.<16 hex>.data": the external data files fw_onnx_write names after a hash of their bytes. */
static gboolean
is_data_file (const char *name)
{
  const char *prefix = "model.onnx.";
  gsize n = strlen (prefix);

  if (!g_str_has_prefix (name, prefix) || strlen (name) != n + 16 + 5 || !g_str_has_suffix (name, ".data"))
    return FALSE;
  for (guint i = 0; i < 16; i++)
    if (!g_ascii_isxdigit (name[n + i]))
      return FALSE;
  return TRUE;
}

/* "model.onnx.<16 hex>.data.XXXXXX": what a writer killed while writing a data file leaves. */
static gboolean
is_temp_of_data_file (const char *name)
{
  gsize n = strlen (name);
  char copy[64];

  if (n <= 7 || n - 7 >= sizeof copy || name[n - 7] != '.')
    return FALSE;
  memcpy (copy, name, n - 7);
  copy[n - 7] = '\0';
  return is_data_file (copy);
}

/* The data file the model at path names, or NULL. */
static char *
data_path_of (const char *path)
{
  g_autoptr(FwModel) model = fw_onnx_load (path, NULL, NULL, NULL);
  FwGraph *g;

  if (model == NULL)
    return NULL;
  g = fw_model_get_graph (model);
  for (guint i = 0; i < g->initializers->len; i++)
    {
      FwValue *v = g_ptr_array_index (g->initializers, i);
      if (v->constant && v->constant->external_location)
        {
          g_autofree char *dir = g_path_get_dirname (path);
          return g_build_filename (dir, v->constant->external_location, NULL);
        }
    }
  return NULL;
}

/* Is name what a killed g_file_set_contents leaves for one of the known files: "KNOWN.XXXXXX"? */
static gboolean
is_temp_of_known (const Case *c, const char *name)
{
  for (guint i = 0; c->known[i]; i++)
    {
      gsize n = strlen (c->known[i]);
      if (strncmp (name, c->known[i], n) == 0 && name[n] == '.' && strlen (name + n + 1) == 6)
        return TRUE;
    }
  return FALSE;
}

/* remove_strays for a writer of a tree: walks dir/relative. */
static guint
remove_tree_strays (const Case *c, const char *relative)
{
  g_autofree char *path = g_build_filename (c->dir, relative, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (path, 0, &error);
  const char *name;
  guint n = 0;

  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *rel = relative[0] ? g_build_filename (relative, name, NULL) : g_strdup (name);
      g_autofree char *full = g_build_filename (c->dir, rel, NULL);
      gsize len = strlen (rel);

      if (g_hash_table_contains (c->tree, rel))
        {
          if (g_file_test (full, G_FILE_TEST_IS_DIR))
            n += remove_tree_strays (c, rel);
          continue;
        }
      /* "KNOWN.XXXXXX": what a killed g_file_set_contents leaves. */
      if (len > 7 && rel[len - 7] == '.' && g_file_test (full, G_FILE_TEST_IS_REGULAR))
        {
          g_autofree char *target = g_strndup (rel, len - 7);

          if (g_hash_table_contains (c->tree, target))
            {
              g_assert_cmpint (g_unlink (full), ==, 0);
              n++;
              continue;
            }
        }
      g_error ("%s: unexpected file %s left in %s", c->what, rel, c->dir);
    }
  return n;
}

/* Removes the temporary files a killed writer left; fails on any file that is neither known nor such a
 * temporary file. Returns how many it removed. */
static guint
remove_strays (const Case *c)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (c->dir, 0, &error);
  const char *name;
  guint n = 0;

  g_assert_no_error (error);
  if (c->tree != NULL)
    return remove_tree_strays (c, "");
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      gboolean known = FALSE;
      for (guint i = 0; c->known[i]; i++)
        known = known || strcmp (name, c->known[i]) == 0;
      /* Data files are the writer's to keep or remove; a data file written by a killed writer whose model
         never replaced the old one stays until the next write removes it. */
      if (known || (c->pair && is_data_file (name)))
        continue;
      if (!is_temp_of_known (c, name) && !(c->pair && is_temp_of_data_file (name)))
        g_error ("%s: unexpected file %s left in %s", c->what, name, c->dir);
      {
        g_autofree char *path = g_build_filename (c->dir, name, NULL);
        g_assert_cmpint (g_unlink (path), ==, 0);
      }
      n++;
    }
  return n;
}

/* Which version the file at path is, 0 (A) or 1 (B). Fails the test when it is neither or does not load.
 * Returns MIXED when it is one version but loads as something else: a model file of one write read with the
 * data file of another. */
#define MIXED 2

static guint
check_file (Case *c, guint kill)
{
  g_autoptr(GBytes) bytes = read_bytes (c->path);
  g_autoptr(GBytes) loaded = NULL;
  g_autoptr(GError) error = NULL;
  guint which;

  if (bytes == NULL)
    g_error ("%s: kill %u: %s is gone", c->what, kill, c->path);
  if (g_bytes_equal (bytes, c->expect[0]))
    which = 0;
  else if (g_bytes_equal (bytes, c->expect[1]))
    which = 1;
  else
    g_error ("%s: kill %u: %s is neither the previous nor the new version (%" G_GSIZE_FORMAT " bytes; A has %"
             G_GSIZE_FORMAT ", B %" G_GSIZE_FORMAT ")", c->what, kill, c->path, g_bytes_get_size (bytes),
             g_bytes_get_size (c->expect[0]), g_bytes_get_size (c->expect[1]));
  loaded = c->load (c, c->path, &error);
  if (loaded == NULL)
    {
      if (c->mixed == NULL)
        g_error ("%s: kill %u: %s is version %c but does not load: %s", c->what, kill, c->path, "AB"[which],
                 error->message);
      g_test_message ("%s: kill %u: %s is version %c but does not load: %s", c->what, kill, c->path,
                      "AB"[which], error->message);
      return MIXED;
    }
  if (!g_bytes_equal (loaded, c->canonical[which]))
    {
      g_autofree char *data_path = c->pair ? data_path_of (c->path) : NULL;
      g_autoptr(GBytes) data = data_path ? read_bytes (data_path) : NULL;
      const char *data_version = data == NULL ? "missing"
                               : c->expect_data[0] && g_bytes_equal (data, c->expect_data[0]) ? "version A"
                               : c->expect_data[1] && g_bytes_equal (data, c->expect_data[1]) ? "version B"
                               : "neither version";

      if (c->mixed == NULL)
        g_error ("%s: kill %u: %s is version %c but loads as %s", c->what, kill, c->path, "AB"[which],
                 g_bytes_equal (loaded, c->canonical[!which]) ? (which ? "A" : "B") : "something else");
      if (c->pair)
        g_test_message ("%s: kill %u: the model file is version %c, its data file %s: it loads %s weights",
                        c->what, kill, "AB"[which], data_version,
                        g_bytes_equal (loaded, c->canonical[!which]) ? "as the other version, with its"
                                                                     : "with the wrong");
      else
        g_test_message ("%s: kill %u: %s is version %c but loads as %s", c->what, kill, c->path, "AB"[which],
                        g_bytes_equal (loaded, c->canonical[!which]) ? "the other" : "something else");
      return MIXED;
    }
  return which;
}

/* Rewrites the file over and over, starting with the version it does not hold now. */
static void G_GNUC_NORETURN
child_loop (Case *c, guint current)
{
  /* Its own process group, so the kill also reaches what it spawns. */
  setpgid (0, 0);
  for (guint i = 1;; i++)
    if (!c->write (c, (current + i) % 2))
      _exit (3);
}

static void
reap_group (pid_t pid)
{
  /* Processes the child spawned were killed with it; as the subreaper we wait for them, so none is still
   * finishing a write while we look at the file. */
  while (waitpid (-pid, NULL, 0) > 0 || errno == EINTR)
    ;
}

typedef struct
{
  guint current;   /* the version the file holds */
  guint kept;
  guint replaced;
  guint mixed;
  guint strays;
} Tally;

/* Forks a writer that rewrites the file again and again, kills it after sleep_us and checks what is left. */
static void
kill_once (Case *c, guint kill_no, gint64 sleep_us, Tally *t)
{
  int status = 0;
  pid_t pid = fork ();
  guint which, n;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    child_loop (c, t->current);
  setpgid (pid, pid);
  g_usleep (sleep_us);
  g_assert_true (kill (-pid, SIGKILL) == 0 || kill (pid, SIGKILL) == 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  reap_group (pid);
  if (!(WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL))
    g_error ("%s: kill %u: the writer was not killed but ended with status %d (a write failed?)", c->what,
             kill_no, status);
  which = check_file (c, kill_no);
  if (which == MIXED)
    {
      t->mixed++;
      /* Back to a consistent A for the next round. */
      g_assert_true (c->write (c, 0));
      which = 0;
    }
  else if (which == t->current)
    t->kept++;
  else
    t->replaced++;
  t->current = which;
  n = remove_strays (c);
  /* A writer does one thing at a time: a kill leaves at most the one temporary file it was writing. */
  g_assert_cmpuint (n, <=, 1);
  t->strays += n;
}

/* Writes A; then N_KILLS times: fork a child that rewrites the file with the other version, then again and
 * again alternating, as fast as it can; kill it at a random moment, and check what is left. */
static void
run_kills (Case *c, guint32 seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  Tally t = { 0 };
  gint64 start, one_write, max_sleep;
  guint extra = 0;

  g_assert_true (c->write (c, 0));
  g_assert_cmpuint (check_file (c, 0), ==, 0);
  /* How long a child takes to start and finish one write here (B, then A again): the kills fall anywhere
   * within about two of those. */
  start = g_get_monotonic_time ();
  for (guint which = 1; which <= 2; which++)
    {
      int status = 0;
      pid_t pid = fork ();

      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        _exit (c->write (c, which % 2) ? 0 : 3);
      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
      g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    }
  one_write = MAX ((g_get_monotonic_time () - start) / 2, 200);
  max_sleep = MIN (2 * one_write + 1000, 100000);
  g_assert_cmpuint (remove_strays (c), ==, 0);

  for (guint kill_no = 1; kill_no <= N_KILLS; kill_no++)
    kill_once (c, kill_no, g_rand_int_range (rand, 0, (gint32) max_sleep + 1), &t);
  /* The kills must land both before and after a write completed, or the test tested nothing. On a loaded
   * machine the calibration above can be off either way: more kills, later ones where no write completed
   * yet, at once where every write did. */
  while ((t.kept == 0 || t.replaced == 0) && extra < N_KILLS)
    {
      gint64 sleep_us;

      extra++;
      if (t.replaced == 0)
        sleep_us = MIN (max_sleep * (1 + extra / 10), G_USEC_PER_SEC);
      else
        sleep_us = g_rand_int_range (rand, 0, 50);
      kill_once (c, N_KILLS + extra, sleep_us, &t);
    }
  g_test_message ("%s: %u kills within 0-%" G_GINT64_FORMAT " us (one write takes about %" G_GINT64_FORMAT " us), "
                  "%u more to reach both outcomes: "
                  "%u left the previous version, %u the new one, %u %s; "
                  "%u temporary files left behind and removed",
                  c->what, N_KILLS, max_sleep, one_write, extra, t.kept, t.replaced, t.mixed,
                  c->mixed ? c->mixed : "mixed", t.strays);
  if (t.mixed > 0)
    {
      g_test_fail_printf ("%s: %u of %u kills left %s", c->what, t.mixed, N_KILLS + extra, c->mixed);
      return;
    }
  g_assert_cmpuint (t.kept, >, 0);
  g_assert_cmpuint (t.replaced, >, 0);
}

/* Fills in expect[] and canonical[] by writing each version once into a folder of its own, under the same
 * base name. */
static void
prepare_expectations (Case *c)
{
  g_autofree char *base = g_path_get_basename (c->path);
  char *saved_path = c->path;

  for (guint which = 0; which < 2; which++)
    {
      g_autofree char *ref_dir = fw_test_temp_dir ();
      g_autoptr(GError) error = NULL;

      c->path = g_build_filename (ref_dir, base, NULL);
      g_assert_true (c->write (c, which));
      c->expect[which] = read_bytes (c->path);
      g_assert_nonnull (c->expect[which]);
      c->canonical[which] = c->load (c, c->path, &error);
      g_assert_no_error (error);
      if (c->pair)
        {
          g_autofree char *data_path = data_path_of (c->path);
          g_assert_nonnull (data_path);
          c->expect_data[which] = read_bytes (data_path);
          g_assert_nonnull (c->expect_data[which]);
        }
      g_free (c->path);
      fw_test_remove_dir (ref_dir);
    }
  c->path = saved_path;
  g_assert_false (g_bytes_equal (c->expect[0], c->expect[1]));
  g_assert_false (g_bytes_equal (c->canonical[0], c->canonical[1]));
  if (c->pair)
    g_assert_false (g_bytes_equal (c->expect_data[0], c->expect_data[1]));
}

/* ---- ONNX models ---- */

static gboolean
onnx_write (Case *c, guint which)
{
  g_autoptr(GError) error = NULL;

  if (!fw_onnx_write (c->model[which], c->path, c->flags, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

static GBytes *
onnx_load (Case *c, const char *path, GError **error)
{
  g_autoptr(FwModel) model = fw_onnx_load (path, NULL, NULL, error);

  if (model == NULL)
    return NULL;
  /* Inline: the weights themselves, wherever they were read from. */
  return fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, error);
}

/* Version B differs from A in its weights and its producer, so a model file of one version read with the
 * data file of the other shows. */
static void
make_version_b (FwModel *model)
{
  FwValue *w1 = fw_graph_lookup_value (fw_model_get_graph (model), "w1");
  gsize size = 0;
  float *values = (float *) fw_tensor_get_data (w1->constant, &size);

  for (gsize i = 0; i < size / sizeof (float); i++)
    values[i] = -values[i] + 0.25f;
  model->producer_name = "fusion-workbench-tests-b";
}

static void
test_onnx (gconstpointer data)
{
  FwOnnxWriteFlags flags = GPOINTER_TO_UINT (data);
  Case *c = g_new0 (Case, 1);

  c->what = flags & FW_ONNX_WRITE_EXTERNAL_DATA ? "onnx (external data)" : "onnx (inline)";
  c->dir = fw_test_temp_dir ();
  c->path = g_build_filename (c->dir, "model.onnx", NULL);
  c->known[0] = "model.onnx";
  c->known[1] = NULL;
  c->write = onnx_write;
  c->load = onnx_load;
  c->flags = flags;
  c->pair = (flags & FW_ONNX_WRITE_EXTERNAL_DATA) != 0;
  c->mixed = c->pair ? "the model file and its external data file from different writes" : NULL;
  /* About 3 MiB of weights: a write takes a while. */
  c->model[0] = fw_test_transformer_block (128, 256, 4, FALSE);
  c->model[1] = fw_test_transformer_block (128, 256, 4, FALSE);
  make_version_b (c->model[1]);
  prepare_expectations (c);
  run_kills (c, flags & FW_ONNX_WRITE_EXTERNAL_DATA ? 0x0c4a5e02 : 0x0c4a5e01);
  case_free (c);
}

/* ---- whitelists ---- */

static gboolean
whitelist_write (Case *c, guint which)
{
  g_autoptr(GError) error = NULL;

  if (!fw_whitelist_save (c->whitelist[which], c->path, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

static GBytes *
whitelist_load (Case *c, const char *path, GError **error)
{
  g_autoptr(FwWhitelist) whitelist = fw_whitelist_load (path, error);
  char *text;

  if (whitelist == NULL)
    return NULL;
  text = fw_whitelist_to_string (whitelist);
  return g_bytes_new_take (text, strlen (text));
}

static void
test_whitelist (void)
{
  Case *c = g_new0 (Case, 1);
  g_autoptr(FwModel) model = fw_test_transformer_stack (24, 16, 32, 4, FALSE);
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(GError) error = NULL;
  FwRuleSet *rules = fw_rule_set_new ();

  c->what = "whitelist";
  c->dir = fw_test_temp_dir ();
  c->path = g_build_filename (c->dir, "model.fusion.yaml", NULL);
  c->known[0] = "model.fusion.yaml";
  c->write = whitelist_write;
  c->load = whitelist_load;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  profile = fw_profile_load_builtin ("ascend-910b", &error);
  g_assert_no_error (error);
  g_assert_true (fw_rule_set_load_builtin (rules, &error));
  plan = fw_plan_new (model, profile, rules, NULL, &error);
  g_assert_no_error (error);
  /* Many entries: tens of KiB. */
  c->whitelist[0] = fw_whitelist_from_plan (plan, "model.onnx");
  c->whitelist[1] = fw_whitelist_from_plan (plan, "model.onnx");
  g_assert_cmpuint (c->whitelist[0]->entries->len, >, 20);
  for (guint i = 0; i < c->whitelist[1]->entries->len; i++)
    {
      FwWhitelistEntry *e = g_ptr_array_index (c->whitelist[1]->entries, i);
      g_free (e->why);
      e->why = g_strdup_printf ("reviewed again, entry %u", i);
    }
  prepare_expectations (c);
  run_kills (c, 0x0c4a5e03);
  case_free (c);
  g_clear_pointer (&plan, fw_plan_free);
  fw_rule_set_free (rules);
}

/* ---- the batch report, written by the real binary ---- */

static gboolean
session_write (Case *c, guint which)
{
  g_autoptr(GError) error = NULL;

  if (!fw_session_save (c->session[which], c->path, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

static GBytes *
session_load (Case *c, const char *path, GError **error)
{
  g_autoptr(FwSession) session = fw_session_load (path, error);
  char *text;

  if (session == NULL)
    return NULL;
  text = fw_session_to_string (session);
  return g_bytes_new_take (text, strlen (text));
}

/* A session before and after a decision on every candidate of a 24-layer stack: tens of KiB. */
static void
test_session (void)
{
  Case *c = g_new0 (Case, 1);
  g_autoptr(FwModel) model = fw_test_transformer_stack (24, 16, 32, 4, FALSE);
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(GError) error = NULL;
  FwRuleSet *rules = fw_rule_set_new ();
  guint n;

  c->what = "session";
  c->dir = fw_test_temp_dir ();
  c->path = g_build_filename (c->dir, "model.fwsession", NULL);
  c->known[0] = "model.fwsession";
  c->write = session_write;
  c->load = session_load;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  profile = fw_profile_load_builtin ("ascend-910b", &error);
  g_assert_no_error (error);
  g_assert_true (fw_rule_set_load_builtin (rules, &error));
  plan = fw_plan_new (model, profile, rules, NULL, &error);
  g_assert_no_error (error);
  c->session[0] = fw_session_from_plan (plan, "model.onnx", NULL);
  n = plan->candidates->len;
  g_assert_cmpuint (n, >, 20);
  for (guint i = 0; i < n; i++)
    g_assert_true (fw_plan_accept (plan, i, "reviewer", "crash-safety test", &error));
  c->session[1] = fw_session_from_plan (plan, "model.onnx", NULL);
  prepare_expectations (c);
  run_kills (c, 0x5e5510a5);
  case_free (c);
  g_clear_pointer (&plan, fw_plan_free);
  fw_rule_set_free (rules);
}

static const char *report_strategy[2] = { "conservative", "aggressive" };

static gboolean
report_write (Case *c, guint which)
{
  const char *argv[] = { c->binary, "--batch", c->model_path, "--strategy", report_strategy[which],
                         "--report", c->path, NULL };
  int status = 0;
  pid_t pid = fork ();

  if (pid < 0)
    return FALSE;
  if (pid == 0)
    {
      int devnull = open ("/dev/null", O_WRONLY);
      if (devnull >= 0)
        {
          dup2 (devnull, STDOUT_FILENO);
          dup2 (devnull, STDERR_FILENO);
        }
      execv (c->binary, (char **) argv);
      _exit (127);
    }
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return FALSE;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

static GBytes *
report_load (Case *c, const char *path, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  char *text;

  if (!json_parser_load_from_file (parser, path, error))
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not a JSON object", path);
      return NULL;
    }
  text = json_to_string (json_parser_get_root (parser), FALSE);
  return g_bytes_new_take (text, strlen (text));
}

static void
test_report (void)
{
  const char *binary = g_getenv ("FW_BINARY");
  Case *c;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GError) error = NULL;

  if (binary == NULL)
    {
      g_test_skip ("FW_BINARY is not set");
      return;
    }
  c = g_new0 (Case, 1);
  c->what = "report";
  c->binary = binary;
  c->dir = fw_test_temp_dir ();
  c->path = g_build_filename (c->dir, "report.json", NULL);
  c->known[0] = "report.json";
  c->known[1] = "model.onnx";
  c->write = report_write;
  c->load = report_load;
  c->model_path = g_build_filename (c->dir, "model.onnx", NULL);
  model = fw_test_transformer_block (32, 64, 4, TRUE);
  g_assert_true (fw_onnx_write (model, c->model_path, FW_ONNX_WRITE_DEFAULT, &error));
  prepare_expectations (c);
  run_kills (c, 0x0c4a5e04);
  case_free (c);
}

/* ---- the kernel package ---- */

static gboolean
package_write (Case *c, guint which)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (c->path);
  /* Ascend only: generated sources, no compiler. */
  g_autoptr(FwTargets) targets = fw_targets_build (c->plan[which], FALSE, TRUE, NULL, NULL, &error);

  if (targets == NULL || !fw_kernel_package_write (c->plan[which], targets, dir, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

/* The files a manifest names, as "PATH SHA256 BYTES" lines in its order; NULL and an error when it is not a
 * manifest. */
static char *
package_listing (GBytes *manifest, const char *what, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GString) listing = g_string_new (NULL);
  JsonObject *root = NULL;
  JsonArray *kernels = NULL;

  if (!json_parser_load_from_data (parser, g_bytes_get_data (manifest, NULL), (gssize) g_bytes_get_size (manifest),
                                   error))
    {
      g_prefix_error (error, "%s: ", what);
      return NULL;
    }
  if (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    root = json_node_get_object (json_parser_get_root (parser));
  if (root != NULL && json_object_has_member (root, "kernels"))
    kernels = json_object_get_array_member (root, "kernels");
  if (kernels == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not a kernel package manifest", what);
      return NULL;
    }
  for (guint k = 0; k < json_array_get_length (kernels); k++)
    {
      JsonArray *files = json_object_get_array_member (json_array_get_object_element (kernels, k), "files");

      for (guint f = 0; files && f < json_array_get_length (files); f++)
        {
          JsonObject *file = json_array_get_object_element (files, f);

          g_string_append_printf (listing, "%s %s %" G_GINT64_FORMAT "\n",
                                  json_object_get_string_member (file, "path"),
                                  json_object_get_string_member (file, "sha256"),
                                  json_object_get_int_member (file, "bytes"));
        }
    }
  return g_string_free (g_steal_pointer (&listing), FALSE);
}

/* Loads the manifest at path and checks every file it names against the SHA-256 and size it records; the
 * canonical form is the listing of what was checked. */
static GBytes *
package_load (Case *c, const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GBytes) manifest = read_bytes (path);
  g_autofree char *listing = NULL;
  g_auto(GStrv) lines = NULL;

  if (manifest == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: cannot be read", path);
      return NULL;
    }
  listing = package_listing (manifest, path, error);
  if (listing == NULL)
    return NULL;
  lines = g_strsplit (listing, "\n", -1);
  for (guint i = 0; lines[i] && lines[i][0]; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], " ", 3);
      g_autofree char *file = g_build_filename (dir, fields[0], NULL);
      g_autofree char *data = NULL, *sum = NULL;
      gsize size = 0;

      if (!g_file_get_contents (file, &data, &size, error))
        return NULL;
      sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, size);
      if (strcmp (sum, fields[1]) != 0 || g_ascii_strtoll (fields[2], NULL, 10) != (gint64) size)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "%s: %" G_GSIZE_FORMAT " bytes with SHA-256 %s, where the manifest records %s bytes with %s",
                       fields[0], size, sum, fields[2], fields[1]);
          return NULL;
        }
    }
  return g_bytes_new_take (g_steal_pointer (&listing), strlen (listing));
}

/* Path → SHA-256 of every file a manifest names; each file and the folders above it also go into tree. */
static GHashTable *
package_files (GBytes *manifest, GHashTable *tree)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *listing = package_listing (manifest, "manifest.json", &error);
  g_auto(GStrv) lines = NULL;
  GHashTable *files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_assert_no_error (error);
  lines = g_strsplit (listing, "\n", -1);
  for (guint i = 0; lines[i] && lines[i][0]; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], " ", 3);
      g_autofree char *rel = g_strdup (fields[0]);

      g_hash_table_insert (files, g_strdup (fields[0]), g_strdup (fields[1]));
      while (strcmp (rel, ".") != 0 && !g_hash_table_contains (tree, rel))
        {
          char *parent = g_path_get_dirname (rel);

          g_hash_table_add (tree, g_steal_pointer (&rel));
          rel = parent;
        }
    }
  return files;
}

/* Two versions of a package rewritten over each other: a transformer layer planned with every candidate
 * proposed (A), and the same layer on a longer sequence with one candidate vetoed (B). The folders both
 * write hold kernels for other shapes, so a manifest of one write beside files of the other shows; B's
 * veto changes which folders the manifest lists. */
static void
test_package (void)
{
  Case *c = g_new0 (Case, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) files_a = NULL, files_b = NULL;
  GHashTableIter iter;
  gpointer path, sum;
  guint rewritten = 0;

  c->what = "kernel package";
  c->dir = fw_test_temp_dir ();
  c->path = g_build_filename (c->dir, "manifest.json", NULL);
  c->known[0] = "manifest.json";
  c->write = package_write;
  c->load = package_load;
  c->mixed = "manifest.json naming a file of another write";

  c->profile = fw_profile_load_builtin ("ascend-910b", &error);
  g_assert_no_error (error);
  c->rules = fw_rule_set_new ();
  g_assert_true (fw_rule_set_load_builtin (c->rules, &error));
  for (guint which = 0; which < 2; which++)
    {
      g_autoptr(FwModel) model = fw_test_transformer_block (which ? 32 : 16, 64, 4, FALSE);

      g_assert_true (fw_test_infer (model, NULL, NULL, &error));
      c->plan[which] = fw_plan_new (model, c->profile, c->rules, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (c->plan[which]->candidates->len, >=, 4);
    }
  g_assert_true (fw_plan_veto (c->plan[1], 1, "reviewer", "crash-safety test", &error));
  g_assert_no_error (error);
  prepare_expectations (c);

  c->tree = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_add (c->tree, g_strdup ("manifest.json"));
  files_a = package_files (c->expect[0], c->tree);
  files_b = package_files (c->expect[1], c->tree);
  /* Worth its time only if some file is rewritten with other bytes, and one is written by A alone. */
  g_hash_table_iter_init (&iter, files_b);
  while (g_hash_table_iter_next (&iter, &path, &sum))
    {
      const char *other = g_hash_table_lookup (files_a, path);
      if (other != NULL && strcmp (other, sum) != 0)
        rewritten++;
    }
  g_assert_cmpuint (rewritten, >, 0);
  g_assert_cmpuint (g_hash_table_size (files_a), >, 0);
  run_kills (c, 0x0c4a5e05);
  case_free (c);
}

/* ---- the input model is never written ---- */

typedef struct
{
  struct stat st;
  GBytes *bytes;
} Snapshot;

static void
snapshot (const char *path, Snapshot *out)
{
  g_assert_cmpint (stat (path, &out->st), ==, 0);
  out->bytes = read_bytes (path);
  g_assert_nonnull (out->bytes);
}

static void
assert_unchanged (const char *path, Snapshot *before)
{
  struct stat st;
  g_autoptr(GBytes) bytes = read_bytes (path);

  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_nonnull (bytes);
  g_assert_true (g_bytes_equal (bytes, before->bytes));
  g_assert_cmpuint (st.st_ino, ==, before->st.st_ino);
  g_assert_cmpint (st.st_mtim.tv_sec, ==, before->st.st_mtim.tv_sec);
  g_assert_cmpint (st.st_mtim.tv_nsec, ==, before->st.st_mtim.tv_nsec);
  g_assert_cmpuint (st.st_mode & 07777, ==, before->st.st_mode & 07777);
  g_clear_pointer (&before->bytes, g_bytes_unref);
}

static void
test_input_untouched (void)
{
  const char *binary = g_getenv ("FW_BINARY");
  g_autofree char *dir = NULL, *model_path = NULL, *data_path = NULL, *report = NULL, *exported = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GError) error = NULL;
  Snapshot model_before, data_before;

  if (binary == NULL)
    {
      g_test_skip ("FW_BINARY is not set");
      return;
    }
  dir = fw_test_temp_dir ();
  model_path = g_build_filename (dir, "model.onnx", NULL);
  data_path = NULL;
  report = g_build_filename (dir, "model.json", NULL);
  exported = g_build_filename (dir, "model.fusion.yaml", NULL);
  model = fw_test_transformer_block (32, 64, 4, TRUE);
  g_assert_true (fw_onnx_write (model, model_path, FW_ONNX_WRITE_EXTERNAL_DATA, &error));
  data_path = data_path_of (model_path);
  g_assert_nonnull (data_path);
  /* Read-only, and older than anything the run could write (root ignores the permission: the check is on
   * the bytes, the inode and the times). */
  g_assert_cmpint (g_chmod (model_path, 0444), ==, 0);
  g_assert_cmpint (g_chmod (data_path, 0444), ==, 0);
  snapshot (model_path, &model_before);
  snapshot (data_path, &data_before);

  for (guint round = 0; round < 2; round++)
    {
      const char *argv[] = { binary, "--batch", model_path, "--report", report, "--export-whitelist", exported,
                             round ? "--whitelist" : NULL, exported, NULL };
      g_autofree char *out = NULL, *err = NULL;
      int status = 0;

      /* The second round also reads back the whitelist the first one wrote. */
      g_assert_true (g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                                   &error));
      g_assert_no_error (error);
      if (!g_spawn_check_wait_status (status, &error))
        g_error ("batch run %u failed: %s\n%s", round, error->message, err);
      g_assert_true (g_file_test (report, G_FILE_TEST_IS_REGULAR));
      g_assert_true (g_file_test (exported, G_FILE_TEST_IS_REGULAR));
    }
  assert_unchanged (model_path, &model_before);
  assert_unchanged (data_path, &data_before);
  g_chmod (model_path, 0644);
  g_chmod (data_path, 0644);
  fw_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#ifdef __linux__
  /* Processes a killed writer spawned become ours to reap. */
  prctl (PR_SET_CHILD_SUBREAPER, 1);
#endif
  g_test_add_data_func ("/core/io/crash-safe/onnx-inline", GUINT_TO_POINTER (FW_ONNX_WRITE_DEFAULT), test_onnx);
  g_test_add_data_func ("/core/io/crash-safe/onnx-external-data", GUINT_TO_POINTER (FW_ONNX_WRITE_EXTERNAL_DATA),
                        test_onnx);
  g_test_add_func ("/core/io/crash-safe/whitelist", test_whitelist);
  g_test_add_func ("/core/io/crash-safe/session", test_session);
  g_test_add_func ("/core/io/crash-safe/report", test_report);
  g_test_add_func ("/core/io/crash-safe/kernel-package", test_package);
  g_test_add_func ("/core/io/crash-safe/input-model-untouched", test_input_untouched);
  return g_test_run ();
}
