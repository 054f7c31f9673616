#pragma once
// Export of any view: PNG (what the widget shows, pixel for pixel) or SVG (the widget's painting recorded as
// vectors; the timeline's span area is a raster image inside it, as it is painted). Chosen by the file's suffix.
#include <QByteArray>
#include <QString>

class QWidget;

// Returns an empty string on success, else the (translated) reason.
QString exportWidget(QWidget* widget, const QString& path);

// Writes encoded bytes as syncsim writes its outputs (syncsim/core/output_file.hpp): a temporary renamed over a regular
// file, written through to a FIFO or device, a symlink kept, every error with its reason (a full disk). Returns an
// empty string on success, else the error's one line.
QString writeOutputBytes(const QString& path, const QByteArray& bytes);
