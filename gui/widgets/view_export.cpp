#include "widgets/view_export.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QImageWriter>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"

namespace {

// The view drawn into memory first, then written as syncsim writes its outputs (sim/app/output_file.hpp): a
// temporary renamed over the file, written through to a FIFO or device, a symlink kept, every error with its reason
// (a full disk, a missing folder) instead of a bare "cannot write".
QString encode(QWidget* widget, const QString& suffix, QByteArray& bytes) {
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (suffix == u"svg") {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(widget->size());
    svg.setViewBox(widget->rect());
    svg.setTitle(QCoreApplication::translate("ViewExport", "syncsim view"));
    QPainter painter;
    if (!painter.begin(&svg)) return QCoreApplication::translate("ViewExport", "cannot draw the SVG");
    widget->render(&painter);
    painter.end();
    return {};
  }
  if (!QImageWriter::supportedImageFormats().contains(suffix.toLatin1())) {
    return QCoreApplication::translate("ViewExport", "use a .png or .svg name");
  }
  QImageWriter writer(&buffer, suffix.toLatin1());
  if (!writer.write(widget->grab().toImage())) return writer.errorString();
  return {};
}

}  // namespace

QString exportWidget(QWidget* widget, const QString& path) {
  QByteArray bytes;
  if (const QString problem = encode(widget, QFileInfo(path).suffix().toLower(), bytes); !problem.isEmpty()) {
    return QCoreApplication::translate("ViewExport", "cannot write %1 (%2)").arg(path, problem);
  }
  return writeOutputBytes(path, bytes);
}

QString writeOutputBytes(const QString& path, const QByteArray& bytes) {
  try {
    syncsim::write_file_atomically(path.toStdString(), [&](std::ostream& out) {
      out.write(bytes.constData(), static_cast<std::streamsize>(bytes.size()));
    });
  } catch (const syncsim::InputError& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}
