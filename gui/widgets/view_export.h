#pragma once
// Export of any view: PNG (what the widget shows, pixel for pixel) or SVG (the widget's painting recorded as
// vectors; the timeline's span area is a raster image inside it, as it is painted). Chosen by the file's suffix.
#include <QString>

class QWidget;

// Returns an empty string on success, else the (translated) reason.
QString exportWidget(QWidget* widget, const QString& path);
