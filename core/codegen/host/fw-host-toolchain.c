/* fw-host-toolchain.c: the system C compiler and the kernel cache.
 *
 * The cache folder is ours alone (mode 0700, owned by us, not group- or world-writable), and every object
 * is checked against the SHA-256 its manifest recorded before it is loaded: a file someone else put there,
 * or a torn write, is compiled again instead of being run. Files are written to a temporary name and
 * renamed, so a crash never leaves a half-written object under a cache key. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "fw-error.h"
#include "fw-superkernel-private.h"
#include "io/fw-file-write.h"
#include "io/fw-spawn.h"

/* -O3 -fno-trapping-math: GCC refuses to vectorise a loop holding Relu's `x > 0 ? x : 0` (or Clip, Max, a
 * Where) while comparisons may trap, and the chain is then several times slower than memory allows. We never
 * unmask floating-point exceptions, so no result changes; only the flags' side effect of raising them could.
 * No -march=native: the object must run on any x86-64 (a cached or packaged object may be loaded on another
 * machine sharing the home folder), so vectors stay SSE2 wide. -ffp-contract=off keeps a*b+c from becoming
 * an FMA (the reference rounds twice) and there is no -ffast-math, so no reassociation or approximate
 * functions and the results match the reference kernels. -fno-math-errno changes no value; it only lets
 * sqrtf compile to one instruction. */
static const char *const default_flags[] = {
  "-std=gnu99", "-O3", "-fPIC", "-shared", "-fopenmp", "-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math",
  NULL
};

/* What the compiler prints on failure is quoted up to this many bytes. */
#define MAX_QUOTED 4000

struct _FwHostToolchain
{
  char   *compiler;
  GStrv   prefix_args;   /* the rest of $CC ("ccache gcc" → "gcc") */
  char   *version;
  char   *flags;
  char   *cache_dir;
  char   *cxx;           /* the C++ compiler, found on first use by fw_host_toolchain_build_cxx */
  char   *cxx_version;
};

static char *
first_line (const char *text)
{
  const char *end = text ? strchr (text, '\n') : NULL;
  g_autofree char *line = end ? g_strndup (text, end - text) : g_strdup (text ? text : "");

  return g_utf8_make_valid (g_strstrip (line), -1);
}

FwHostToolchain *
fw_host_toolchain_new (const char *cache_dir, GError **error)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) cc_argv = NULL;
  g_autofree char *path = NULL, *out = NULL, *err = NULL;
  g_autoptr(GError) local = NULL;
  const char *cc = g_getenv ("CC");
  const char *names[] = { "cc", "gcc", "clang" };
  const char *argv[4];
  FwHostToolchain *tc;
  gint status = 0;

  if (cc != NULL && *cc != '\0')
    {
      if (!g_shell_parse_argv (cc, NULL, &cc_argv, &local) || cc_argv[0] == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("$CC “%s” cannot be split into words"), cc);
          return NULL;
        }
      path = g_find_program_in_path (cc_argv[0]);
      if (path == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("the C compiler “%s” named by $CC was not found"),
                       cc_argv[0]);
          return NULL;
        }
    }
  else
    for (guint i = 0; i < G_N_ELEMENTS (names) && path == NULL; i++)
      path = g_find_program_in_path (names[i]);
  if (path == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("no C compiler found for host SuperKernels (set $CC, or install cc, gcc or clang)"));
      return NULL;
    }

  builder = g_strv_builder_new ();
  for (guint i = 1; cc_argv && cc_argv[i]; i++)
    g_strv_builder_add (builder, cc_argv[i]);
  argv[0] = path;
  argv[1] = "--version";
  argv[2] = NULL;
  if (!fw_spawn_sync (NULL, argv, FW_SPAWN_DEFAULT, &out, &err, &status, &local) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("the C compiler “%s” does not run: %s"), path,
                   local ? local->message : _("--version failed"));
      return NULL;
    }

  tc = g_new0 (FwHostToolchain, 1);
  tc->compiler = g_steal_pointer (&path);
  tc->prefix_args = g_strv_builder_end (builder);
  tc->version = first_line (out);
  tc->flags = g_strjoinv (" ", (char **) default_flags);
  tc->cache_dir = cache_dir ? g_strdup (cache_dir)
                            : g_build_filename (g_get_user_cache_dir (), "fusion-workbench", "kernels", NULL);
  return tc;
}

void
fw_host_toolchain_free (FwHostToolchain *toolchain)
{
  if (toolchain == NULL)
    return;
  g_free (toolchain->compiler);
  g_strfreev (toolchain->prefix_args);
  g_free (toolchain->version);
  g_free (toolchain->flags);
  g_free (toolchain->cache_dir);
  g_free (toolchain->cxx);
  g_free (toolchain->cxx_version);
  g_free (toolchain);
}

const char *
fw_host_toolchain_get_compiler (FwHostToolchain *toolchain)
{
  return toolchain->compiler;
}

const char *
fw_host_toolchain_get_version (FwHostToolchain *toolchain)
{
  return toolchain->version;
}

const char *
fw_host_toolchain_get_flags (FwHostToolchain *toolchain)
{
  return toolchain->flags;
}

const char *
fw_host_toolchain_default_flags (void)
{
  static char *flags = NULL;
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      flags = g_strjoinv (" ", (char **) default_flags);
      g_once_init_leave (&once, 1);
    }
  return flags;
}

const char *
fw_host_toolchain_get_cache_dir (FwHostToolchain *toolchain)
{
  return toolchain->cache_dir;
}

/* Creates the folder (0700) and refuses one that others could write into. */
static gboolean
check_cache_dir (const char *dir, GError **error)
{
  GStatBuf st;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("cannot create the kernel cache “%s”: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  if (g_lstat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("the kernel cache “%s” is not a folder"), dir);
      return FALSE;
    }
  if (st.st_uid != getuid () || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO,
                   _("refusing the kernel cache “%s”: it must belong to us and not be writable by group or others"), dir);
      return FALSE;
    }
  return TRUE;
}

static char *
file_sha256 (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &data, &len, error))
    return NULL;
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
}

/* The object hash the manifest records, or NULL when it is missing or unreadable. */
static char *
manifest_object_hash (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonObject *obj;
  const char *hash;

  if (!json_parser_load_from_file (parser, path, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  obj = json_node_get_object (root);
  hash = json_object_get_string_member_with_default (obj, "object_sha256", NULL);
  return hash ? g_strdup (hash) : NULL;
}

static gboolean
write_manifest_for (const char *source_hash, const char *object_hash, const char *version, const char *flags,
                    const char *path, GError **error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "abi");
  json_builder_add_int_value (b, FW_SK_ABI_VERSION);
  json_builder_set_member_name (b, "source_sha256");
  json_builder_add_string_value (b, source_hash);
  json_builder_set_member_name (b, "object_sha256");
  json_builder_add_string_value (b, object_hash);
  json_builder_set_member_name (b, "compiler");
  json_builder_add_string_value (b, version);
  json_builder_set_member_name (b, "flags");
  json_builder_add_string_value (b, flags);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  text = json_generator_to_data (gen, NULL);
  return fw_file_write (path, text, -1, error);
}

/* One compile into the cache: the compiler, its arguments (flags before -o, extra arguments after the
 * source), the source text and the suffixes of the source and the result. Everything that changes the
 * result is in the key: the source, the flags, the compiler's version, its prefix words, the extra
 * arguments and a salt (what the source includes from elsewhere). */
typedef struct
{
  const char        *compiler;
  char *const       *prefix_args;
  const char *const *flags;
  const char        *flags_text;
  const char *const *extra_args;  /* NULL-terminated, or NULL */
  const char        *version;
  const char        *source;
  const char        *salt;        /* or NULL */
  const char        *source_ext;
  const char        *object_ext;
} CacheJob;

typedef struct
{
  char               *object_path;
  char               *source_hash;
  char               *object_hash;
  FwSuperKernelCache  cache;
  char               *compiler_output;  /* what the compiler said when it failed */
} CacheResult;

static void
cache_result_clear (CacheResult *r)
{
  g_free (r->object_path);
  g_free (r->source_hash);
  g_free (r->object_hash);
  g_free (r->compiler_output);
  memset (r, 0, sizeof *r);
}

/* Runs the compiler on src into a temporary object next to obj, then renames it into place. FALSE with
 * error unset and r->compiler_output set when the compiler refused the source. */
static gboolean
compile_job (FwHostToolchain *tc, const CacheJob *job, const char *src, const char *obj, CacheResult *r,
             GError **error)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *tmp = g_strconcat (obj, ".XXXXXX", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) local = NULL;
  gint status = 0;
  int fd;

  fd = g_mkstemp_full (tmp, O_RDWR, 0600);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("cannot create a file in the kernel cache “%s”: %s"),
                   tc->cache_dir, g_strerror (saved));
      return FALSE;
    }
  close (fd);
  g_ptr_array_add (argv, (char *) job->compiler);
  for (guint i = 0; job->prefix_args[i]; i++)
    g_ptr_array_add (argv, job->prefix_args[i]);
  for (guint i = 0; job->flags[i]; i++)
    g_ptr_array_add (argv, (char *) job->flags[i]);
  g_ptr_array_add (argv, (char *) "-o");
  g_ptr_array_add (argv, tmp);
  g_ptr_array_add (argv, (char *) src);
  for (guint i = 0; job->extra_args && job->extra_args[i]; i++)
    g_ptr_array_add (argv, (char *) job->extra_args[i]);
  g_ptr_array_add (argv, NULL);
  if (!fw_spawn_sync (tc->cache_dir, (const char *const *) argv->pdata, FW_SPAWN_DEFAULT, &out, &err, &status,
                      &local) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      const char *text = local ? local->message : (err && *err ? err : (out ? out : ""));
      gsize len = strlen (text);
      g_autofree char *message = g_utf8_make_valid (text, MIN (len, MAX_QUOTED));

      g_unlink (tmp);
      r->compiler_output = g_strdup_printf ("%s%s", g_strstrip (message), len > MAX_QUOTED ? "…" : "");
      return FALSE;
    }
  g_free (r->object_hash);
  r->object_hash = file_sha256 (tmp, error);
  if (r->object_hash == NULL || g_rename (tmp, obj) != 0)
    {
      if (r->object_hash != NULL)
        g_set_error (error, FW_ERROR, FW_ERROR_IO, _("cannot move the compiled kernel to “%s”: %s"), obj,
                     g_strerror (errno));
      g_unlink (tmp);
      return FALSE;
    }
  return TRUE;
}

static void
key_add (GChecksum *key, const char *text)
{
  /* NULs between the parts, so no two different lists hash alike. */
  g_checksum_update (key, (const guchar *) text, strlen (text) + 1);
}

/* The cached result of job, checked against its recorded hash, or a new compile. */
static gboolean
build_cached (FwHostToolchain *tc, const CacheJob *job, CacheResult *r, GError **error)
{
  g_autoptr(GChecksum) key = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *base = NULL, *src = NULL, *obj = NULL, *manifest = NULL, *recorded = NULL;
  gboolean tampered = FALSE;

  if (!check_cache_dir (tc->cache_dir, error))
    return FALSE;
  r->source_hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, job->source, -1);
  key_add (key, job->source);
  key_add (key, job->flags_text);
  key_add (key, job->version);
  for (guint i = 0; job->prefix_args[i]; i++)
    key_add (key, job->prefix_args[i]);
  for (guint i = 0; job->extra_args && job->extra_args[i]; i++)
    key_add (key, job->extra_args[i]);
  if (job->salt != NULL)
    key_add (key, job->salt);
  base = g_build_filename (tc->cache_dir, g_checksum_get_string (key), NULL);
  src = g_strconcat (base, job->source_ext, NULL);
  obj = g_strconcat (base, job->object_ext, NULL);
  manifest = g_strconcat (base, ".json", NULL);

  recorded = manifest_object_hash (manifest);
  if (recorded != NULL && g_file_test (obj, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *actual = file_sha256 (obj, NULL);
      if (actual != NULL && g_strcmp0 (actual, recorded) == 0)
        {
          r->object_hash = g_steal_pointer (&actual);
          r->object_path = g_steal_pointer (&obj);
          r->cache = FW_SUPERKERNEL_CACHE_HIT;
          return TRUE;
        }
      tampered = TRUE;
    }
  if (!fw_file_write (src, job->source, -1, error) || !compile_job (tc, job, src, obj, r, error) ||
      !write_manifest_for (r->source_hash, r->object_hash, job->version, job->flags_text, manifest, error))
    return FALSE;
  r->object_path = g_steal_pointer (&obj);
  r->cache = tampered ? FW_SUPERKERNEL_CACHE_REPLACED : FW_SUPERKERNEL_CACHE_MISS;
  return TRUE;
}

gboolean
fw_host_toolchain_build (FwHostToolchain *tc, FwSuperKernel *kernel, GError **error)
{
  static const char *const libm[] = { "-lm", NULL };
  CacheJob job = { tc->compiler, tc->prefix_args, default_flags, tc->flags, libm, tc->version, kernel->source, NULL,
                   ".c", ".so" };
  CacheResult r = { 0 };

  if (!build_cached (tc, &job, &r, error))
    {
      if (r.compiler_output != NULL)
        g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("the C compiler failed on SuperKernel %u (%s): %s%s"),
                     kernel->candidate->index, kernel->candidate->kind ? kernel->candidate->kind : "",
                     r.compiler_output, "");
      cache_result_clear (&r);
      return FALSE;
    }
  g_free (kernel->source_hash);
  kernel->source_hash = g_steal_pointer (&r.source_hash);
  g_free (kernel->object_hash);
  kernel->object_hash = g_steal_pointer (&r.object_hash);
  g_free (kernel->object_path);
  kernel->object_path = g_steal_pointer (&r.object_path);
  kernel->cache = r.cache;
  cache_result_clear (&r);
  return TRUE;
}

/* $CXX, else c++, g++, clang++ on PATH, and its version line. */
static gboolean
find_cxx (FwHostToolchain *tc, GError **error)
{
  const char *names[] = { "c++", "g++", "clang++" };
  const char *env = g_getenv ("CXX");
  g_autofree char *path = NULL, *out = NULL;
  const char *argv[3];
  gint status = 0;

  if (tc->cxx != NULL)
    return TRUE;
  if (env != NULL && *env != '\0')
    path = g_find_program_in_path (env);
  for (guint i = 0; i < G_N_ELEMENTS (names) && path == NULL; i++)
    path = g_find_program_in_path (names[i]);
  argv[0] = path;
  argv[1] = "--version";
  argv[2] = NULL;
  if (path == NULL ||
      !fw_spawn_sync (NULL, argv, FW_SPAWN_STDERR_TO_NULL, &out, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("no C++ compiler found (set $CXX, or install c++, g++ or clang++)"));
      return FALSE;
    }
  tc->cxx = g_steal_pointer (&path);
  tc->cxx_version = first_line (out);
  return TRUE;
}

gboolean
fw_host_toolchain_build_cxx (FwHostToolchain   *tc,
                             const char        *source,
                             const char *const *flags,
                             const char *const *extra_args,
                             const char        *salt,
                             const char        *object_ext,
                             char             **object_path,
                             GError           **error)
{
  static char *no_prefix[] = { NULL };
  g_autofree char *flags_text = g_strjoinv (" ", (char **) flags);
  CacheJob job = { NULL, no_prefix, flags, flags_text, extra_args, NULL, source, salt, ".cpp", object_ext };
  CacheResult r = { 0 };

  if (!find_cxx (tc, error))
    return FALSE;
  job.compiler = tc->cxx;
  job.version = tc->cxx_version;
  if (!build_cached (tc, &job, &r, error))
    {
      if (r.compiler_output != NULL)
        g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("the C++ compiler failed: %s"), r.compiler_output);
      cache_result_clear (&r);
      return FALSE;
    }
  *object_path = g_steal_pointer (&r.object_path);
  cache_result_clear (&r);
  return TRUE;
}
