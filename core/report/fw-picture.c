/* fw-picture.c: a drawing encoded in memory, then written atomically (fw-picture.h). */
#include "config.h"

#include <cairo-svg.h>
#include <math.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-picture.h"
#include "io/fw-file-write.h"

#define PNG_MAX_SIDE    16384.0
#define PNG_MAX_PIXELS  (64.0 * 1024 * 1024)

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
check_status (cairo_status_t status, const char *path, GError **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  g_set_error (error, FW_ERROR, status == CAIRO_STATUS_NO_MEMORY ? FW_ERROR_LIMIT : FW_ERROR_INTERNAL,
               _("%s: could not draw the picture: %s"), path, cairo_status_to_string (status));
  return FALSE;
}

gboolean
fw_picture_format_for_path (const char *path, gboolean *svg, GError **error)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (path != NULL, FALSE);

  lower = g_ascii_strdown (path, -1);
  *svg = g_str_has_suffix (lower, ".svg");
  if (!*svg && !g_str_has_suffix (lower, ".png"))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                   _("%s: unknown picture format: the name must end in .svg or .png"), path);
      return FALSE;
    }
  return TRUE;
}

gboolean
fw_picture_write (const char *path, gdouble width, gdouble height, FwPictureDrawFunc draw, gpointer user_data,
                  GError **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  gboolean svg;
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (draw != NULL, FALSE);

  if (!fw_picture_format_for_path (path, &svg, error))
    return FALSE;
  width = MAX (width, 1);
  height = MAX (height, 1);

  if (svg)
    {
      surface = cairo_svg_surface_create_for_stream (append_bytes, bytes, width, height);
      cr = cairo_create (surface);
      draw (cr, width, height, user_data);
      status = cairo_status (cr);
      cairo_destroy (cr);
      cairo_surface_finish (surface);
      if (status == CAIRO_STATUS_SUCCESS)
        status = cairo_surface_status (surface);
      cairo_surface_destroy (surface);
    }
  else
    {
      gdouble scale = MIN (1.0, MIN (PNG_MAX_SIDE / width, PNG_MAX_SIDE / height));
      int w, h;

      scale = MIN (scale, sqrt (PNG_MAX_PIXELS / (width * height)));
      w = MAX (1, (int) ceil (width * scale));
      h = MAX (1, (int) ceil (height * scale));
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
      status = cairo_surface_status (surface);
      if (status == CAIRO_STATUS_SUCCESS)
        {
          cr = cairo_create (surface);
          cairo_scale (cr, scale, scale);
          draw (cr, width, height, user_data);
          status = cairo_status (cr);
          cairo_destroy (cr);
          if (status == CAIRO_STATUS_SUCCESS)
            status = cairo_surface_write_to_png_stream (surface, append_bytes, bytes);
        }
      cairo_surface_destroy (surface);
    }
  if (!check_status (status, path, error))
    return FALSE;
  return fw_file_write (path, bytes->data, bytes->len, error);
}
