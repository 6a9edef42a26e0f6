/* fw-array-pool.c: run-time arrays' storage, kept for reuse by size.
 *
 * A model run frees and allocates the same sizes over and over. Large storage (POOL_MIN_BYTES and up)
 * would come back from the kernel as fresh zeroed pages, whose faults cost more than the kernel that fills
 * them: up to POOL_MAX_BLOCKS blocks of it wait here, oldest out first. Smaller storage went back to the C
 * library on every run, and every array's own struct too (glibc's _int_malloc, _int_free and
 * malloc_consolidate were about 2 % of a fused run's main thread under perf): both now wait in stacks by
 * size, up to SMALL_MAX_PER_SIZE blocks a size and SMALL_MAX_BYTES in all, so that from its second run a
 * program's arrays take their storage and structs from here. Shared by all threads under one lock. Under
 * AddressSanitizer the small stacks stay empty: its use-after-free checks need each block freed when its
 * array goes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fw-array-pool-private.h"

#define POOL_MIN_BYTES     (256 * 1024)
#define POOL_MAX_BLOCKS    64
#define POOL_MAX_BYTES     ((gsize) 1 << 31)
#define SMALL_MAX_PER_SIZE 256
#define SMALL_MAX_BYTES    ((gsize) 64 << 20)
#define MAX_STRUCTS        4096

#if defined(__SANITIZE_ADDRESS__)
#define KEEP_SMALL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KEEP_SMALL 0
#endif
#endif
#ifndef KEEP_SMALL
#define KEEP_SMALL 1
#endif

typedef struct
{
  gpointer data;
  gsize    size;
} PoolBlock;

static GMutex pool_lock;
static PoolBlock pool[POOL_MAX_BLOCKS];
static guint pool_len;
static gsize pool_bytes;
/* gsize → GPtrArray of blocks of that size */
static GHashTable *small;
static gsize small_bytes;
static GPtrArray *structs;

static gpointer
take_small (gsize size)
{
  GPtrArray *stack = small != NULL ? g_hash_table_lookup (small, GSIZE_TO_POINTER (size)) : NULL;

  if (stack == NULL || stack->len == 0)
    return NULL;
  small_bytes -= size;
  return g_ptr_array_steal_index_fast (stack, stack->len - 1);
}

gpointer
fw_array_pool_take (gsize size)
{
  gpointer data = NULL;

  if (size < POOL_MIN_BYTES && !KEEP_SMALL)
    return NULL;
  g_mutex_lock (&pool_lock);
  if (size < POOL_MIN_BYTES)
    data = take_small (size);
  else
    for (guint i = pool_len; i-- > 0;)
      if (pool[i].size == size)
        {
          data = pool[i].data;
          pool_bytes -= size;
          pool[i] = pool[--pool_len];
          break;
        }
  g_mutex_unlock (&pool_lock);
  return data;
}

/* FALSE when the bounds leave no room: the caller frees it. */
static gboolean
give_small (gpointer data, gsize size)
{
  GPtrArray *stack;

  if (small == NULL)
    small = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  stack = g_hash_table_lookup (small, GSIZE_TO_POINTER (size));
  if (stack == NULL)
    {
      stack = g_ptr_array_new ();
      g_hash_table_insert (small, GSIZE_TO_POINTER (size), stack);
    }
  if (stack->len >= SMALL_MAX_PER_SIZE || small_bytes + size > SMALL_MAX_BYTES)
    return FALSE;
  g_ptr_array_add (stack, data);
  small_bytes += size;
  return TRUE;
}

void
fw_array_pool_give (gpointer data, gsize size)
{
  gpointer evict = NULL;

  if (size < POOL_MIN_BYTES && !KEEP_SMALL)
    {
      free (data);
      return;
    }
  g_mutex_lock (&pool_lock);
  if (size < POOL_MIN_BYTES)
    evict = give_small (data, size) ? NULL : data;
  else if (size > POOL_MAX_BYTES)
    evict = data;
  else
    {
      /* Oldest first out, until the new block fits the bounds. */
      while (pool_len > 0 && (pool_len == POOL_MAX_BLOCKS || pool_bytes + size > POOL_MAX_BYTES))
        {
          free (pool[0].data);
          pool_bytes -= pool[0].size;
          memmove (pool, pool + 1, (pool_len - 1) * sizeof (PoolBlock));
          pool_len--;
        }
      pool[pool_len].data = data;
      pool[pool_len].size = size;
      pool_len++;
      pool_bytes += size;
    }
  g_mutex_unlock (&pool_lock);
  free (evict);
}

FwArray *
fw_array_pool_new_struct (void)
{
  FwArray *array = NULL;

  if (KEEP_SMALL)
    {
      g_mutex_lock (&pool_lock);
      if (structs != NULL && structs->len > 0)
        array = g_ptr_array_steal_index_fast (structs, structs->len - 1);
      g_mutex_unlock (&pool_lock);
    }
  if (array == NULL)
    return g_new0 (FwArray, 1);
  memset (array, 0, sizeof *array);
  return array;
}

void
fw_array_pool_free_struct (FwArray *array)
{
  gboolean kept = FALSE;

  if (KEEP_SMALL)
    {
      g_mutex_lock (&pool_lock);
      if (structs == NULL)
        structs = g_ptr_array_new ();
      if (structs->len < MAX_STRUCTS)
        {
          g_ptr_array_add (structs, array);
          kept = TRUE;
        }
      g_mutex_unlock (&pool_lock);
    }
  if (!kept)
    g_free (array);
}

static void
free_stack (gpointer key, gpointer value, gpointer data)
{
  GPtrArray *stack = value;

  (void) key;
  (void) data;
  for (guint i = 0; i < stack->len; i++)
    free (g_ptr_array_index (stack, i));
  g_ptr_array_set_size (stack, 0);
}

void
fw_array_pool_trim (void)
{
  g_mutex_lock (&pool_lock);
  for (guint i = 0; i < pool_len; i++)
    free (pool[i].data);
  pool_len = 0;
  pool_bytes = 0;
  if (small != NULL)
    g_hash_table_foreach (small, free_stack, NULL);
  g_clear_pointer (&small, g_hash_table_unref);
  small_bytes = 0;
  if (structs != NULL)
    for (guint i = 0; i < structs->len; i++)
      g_free (g_ptr_array_index (structs, i));
  g_clear_pointer (&structs, g_ptr_array_unref);
  g_mutex_unlock (&pool_lock);
}
