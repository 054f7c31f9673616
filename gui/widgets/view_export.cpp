#include "widgets/view_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

QString exportWidget(QWidget* widget, const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == u"svg") {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(widget->size());
    svg.setViewBox(widget->rect());
    svg.setTitle(QCoreApplication::translate("ViewExport", "syncsim view"));
    QPainter painter;
    if (!painter.begin(&svg)) return QCoreApplication::translate("ViewExport", "cannot write %1").arg(path);
    widget->render(&painter);
    painter.end();
    return {};
  }
  if (!widget->grab().save(path)) {
    return QCoreApplication::translate("ViewExport", "cannot write %1 (use a .png or .svg name)").arg(path);
  }
  return {};
}
