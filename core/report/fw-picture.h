/* fw-picture.h: how a cairo drawing becomes a file, without a display: SVG for documents, PNG for quick
 * looks. The graph (fw-render.h) and the charts (fw-roofline.h) all go through here, so every picture is
 * encoded in memory first and reaches the disk atomically (io/fw-file-write.h): a failure never leaves a
 * truncated file behind. */
#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

/* Draws a picture of width × height units. */
typedef void (*FwPictureDrawFunc) (cairo_t  *cr,
                                   gdouble   width,
                                   gdouble   height,
                                   gpointer  user_data);

/* TRUE when path names a picture format we write (.svg or .png, any case), setting *svg; else
 * FW_ERROR_USAGE naming the path. */
gboolean fw_picture_format_for_path (const char  *path,
                                     gboolean    *svg,
                                     GError     **error);

/* Draws with draw into path, SVG or PNG by its extension. A PNG larger than 16,384 px a side (or 64
 * megapixels) is scaled down to fit rather than refused. The file is replaced atomically; errors name the
 * path. */
gboolean fw_picture_write           (const char         *path,
                                     gdouble             width,
                                     gdouble             height,
                                     FwPictureDrawFunc   draw,
                                     gpointer            user_data,
                                     GError            **error);

G_END_DECLS
