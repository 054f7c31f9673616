// syncsim-gui: the window, or with --screenshot an offscreen render of one view to a PNG (docs/gui.md).
//
//   syncsim-gui [SCENARIO.yaml | TRACE.json | SWEEP.csv]
//   syncsim-gui --screenshot OUT.png --view timeline|ring|jobs|scaling [--step K] [--bucket B] [--algorithm ALGO]
//               [--channel K|all] [--expand LIST] [--group KIND:N] [--size WxH] [--all-lanes]
//               [--time FROM:TO]
//               [--lang zh_CN] INPUT
//   syncsim-gui --screenshot OUT.png --view convergence [--size WxH] REPORT.json|SCENARIO.yaml ...
//
// Exit status (docs/architecture.md §7): 0 success; 2 bad input or usage (the message names the file and what is
// wrong); 1 an unexpected internal error.
#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QHash>
#include <QImageWriter>
#include <QLibraryInfo>
#include <QLocale>
#include <QMessageBox>
#include <QTranslator>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <vector>

#include "models/loaded_document.h"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/core/units.hpp"
#include "widgets/main_window.h"
#include "widgets/screenshot.h"
#include "widgets/view_export.h"

namespace {

// The language comes before the parser (its help text is translated): --lang NAME or --lang=NAME, else the
// system locale.
QLocale requestedLocale(const QStringList& args) {
  for (qsizetype i = 1; i < args.size(); ++i) {
    if (args[i] == u"--lang" && i + 1 < args.size()) return QLocale(args[i + 1]);
    if (args[i].startsWith(u"--lang=")) return QLocale(args[i].mid(7));
  }
  return QLocale::system();
}

void installTranslators(QApplication& app, const QLocale& locale) {
  QLocale::setDefault(locale);
  auto* ours = new QTranslator(&app);
  // Built from gui/translations/*.ts into the binary's resources at build time.
  if (ours->load(locale, QStringLiteral("syncsim_gui"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
    QApplication::installTranslator(ours);
  }
  auto* qt = new QTranslator(&app);
  if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
               QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
    QApplication::installTranslator(qt);
  }
}

int fail(const QString& message) {
  std::fprintf(stderr, "syncsim-gui: %s\n", qPrintable(message));
  return 2;
}

// The largest screenshot side: 10000 x 10000 is 400 MB of pixels already; a typo's extra zero should be refused,
// not allocated.
constexpr int kMaxScreenshotSide = 10000;

// The image format --screenshot's name asks for (QImageWriter picks it by suffix); empty when Qt cannot write it.
QByteArray screenshotFormat(const QString& out) {
  const QByteArray suffix = QFileInfo(out).suffix().toLower().toLatin1();
  return QImageWriter::supportedImageFormats().contains(suffix) ? suffix : QByteArray();
}

// What is wrong with where the screenshot goes, found before anything is loaded or simulated: the folder missing
// or not writable, a folder given as the name, a suffix Qt cannot write. Empty when nothing is.
QString screenshotOutputProblem(const QString& out) {
  try {
    syncsim::check_output_file(out.toStdString(), "--screenshot");
  } catch (const syncsim::InputError& e) {
    return QString::fromUtf8(e.what());
  }
  if (screenshotFormat(out).isEmpty()) {
    return QApplication::translate("main", "--screenshot: expected a .png file name, got '%1'").arg(out);
  }
  return {};
}

// Which files a view can show, checked before a scenario is simulated for nothing: a report.json holds only the
// convergence curve, a sweep CSV only the scaling chart.
QString viewMismatch(ViewKind view, const QString& viewName, const QString& input) {
  if (!QFileInfo(input).isFile()) return {};  // the loader says what is wrong with it
  const DocumentKind kind = documentKindOf(input);
  const bool timelineOrRing = view == ViewKind::Timeline || view == ViewKind::Ring || view == ViewKind::Jobs;
  if (timelineOrRing && kind == DocumentKind::Report) {
    return QApplication::translate("main",
                                   "--view %1: %2 is a report.json, which only --view convergence shows; give the "
                                   "scenario or its trace.json")
        .arg(viewName, input);
  }
  if (timelineOrRing && kind == DocumentKind::Sweep) {
    return QApplication::translate("main", "--view %1: %2 is a sweep CSV, which only --view scaling shows")
        .arg(viewName, input);
  }
  if (view == ViewKind::Scaling && kind != DocumentKind::Sweep) {
    return QApplication::translate("main",
                                   "--view scaling: expected a sweep CSV (syncsim sweep -o results.csv), got %1")
        .arg(input);
  }
  if (view == ViewKind::Convergence && (kind == DocumentKind::Sweep || kind == DocumentKind::Trace)) {
    return QApplication::translate("main", "--view convergence: expected report.json files or scenarios, got %1")
        .arg(input);
  }
  return {};
}

// Flags that only one view reads: given with another, they would be silently ignored.
QString flagsForOtherViews(const QCommandLineParser& parser, ViewKind view, const QString& viewName) {
  const bool timelineOrRing = view == ViewKind::Timeline || view == ViewKind::Ring;
  for (const char* flag : {"step", "bucket", "algorithm"}) {
    if (parser.isSet(QLatin1String(flag)) && !timelineOrRing) {
      return QApplication::translate("main", "--%1 goes with --view ring or timeline, not %2")
          .arg(QLatin1String(flag), viewName);
    }
  }
  for (const char* flag : {"channel", "group"}) {
    if (parser.isSet(QLatin1String(flag)) && view != ViewKind::Ring) {
      return QApplication::translate("main", "--%1 goes with --view ring, not %2").arg(QLatin1String(flag), viewName);
    }
  }
  if (parser.isSet(QStringLiteral("expand")) && view != ViewKind::Ring && view != ViewKind::Jobs) {
    return QApplication::translate("main", "--expand goes with --view ring or jobs, not %1").arg(viewName);
  }
  for (const char* flag : {"all-lanes", "time"}) {
    if (parser.isSet(QLatin1String(flag)) && view != ViewKind::Timeline) {
      return QApplication::translate("main", "--%1 goes with --view timeline, not %2")
          .arg(QLatin1String(flag), viewName);
    }
  }
  return {};
}

// A PNG larger than this (a large machine's mesh of antialiased links) is written with a 256-colour palette instead,
// about a fifth of the size and to the eye the same picture; the conversion is deterministic, as the encoding is.
constexpr qsizetype kMaxTrueColourBytes = 200 * 1024;

// The image's `count` commonest colours (ties by value): the fills, text and lines stay exact, only antialiasing's
// in-between shades move to their nearest.
QList<QRgb> commonestColours(const QImage& image, int count) {
  const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
  QHash<QRgb, int> seen;
  for (int y = 0; y < rgb.height(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
    for (int x = 0; x < rgb.width(); ++x) ++seen[line[x]];
  }
  std::vector<std::pair<int, QRgb>> byCount;
  for (auto it = seen.cbegin(); it != seen.cend(); ++it) byCount.emplace_back(-it.value(), it.key());
  std::sort(byCount.begin(), byCount.end());
  QList<QRgb> colours;
  for (std::size_t i = 0; i < byCount.size() && colours.size() < count; ++i) colours << byCount[i].second;
  return colours;
}

bool encode(const QImage& image, const QString& out, QByteArray& bytes, QString& error) {
  bytes.clear();
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QImageWriter writer(&buffer, screenshotFormat(out));
  if (writer.write(image)) return true;
  error = QApplication::translate("main", "--screenshot: cannot encode %1: %2").arg(out, writer.errorString());
  return false;
}

// Encodes the image and writes it as syncsim writes its outputs (writeOutputBytes).
QString saveScreenshot(const QImage& image, const QString& out) {
  QByteArray bytes;
  QString error;
  if (!encode(image, out, bytes, error)) return error;
  if (bytes.size() > kMaxTrueColourBytes) {
    const QImage palette = image.convertToFormat(QImage::Format_Indexed8, commonestColours(image, 256),
                                                 Qt::ThresholdDither | Qt::AvoidDither);
    if (!encode(palette, out, bytes, error)) return error;
  }
  return writeOutputBytes(out, bytes);
}

// The offscreen platform warns that it cannot propagate size hints each time a window is laid out: noise in a
// screenshot run, where nothing is shown anyway.
QtMessageHandler previousHandler = nullptr;

void quietOffscreenNoise(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (message.contains(QLatin1String("propagateSizeHints"))) return;
  if (previousHandler) previousHandler(type, context, message);
}

int screenshot(const QCommandLineParser& parser) {
  previousHandler = qInstallMessageHandler(quietOffscreenNoise);
  const QStringList inputs = parser.positionalArguments();
  const auto view = parseViewKind(parser.value(QStringLiteral("view")));
  if (!view) {
    return fail(
        QApplication::translate("main", "--view: expected timeline, ring, jobs, scaling or convergence, got '%1'")
            .arg(parser.value(QStringLiteral("view"))));
  }
  // The convergence view overlays several runs; every other view shows one file.
  if (*view == ViewKind::Convergence && inputs.isEmpty()) {
    return fail(QApplication::translate("main", "--view convergence needs at least one report.json or scenario"));
  }
  if (*view != ViewKind::Convergence && inputs.size() != 1) {
    return fail(QApplication::translate("main", "--screenshot needs exactly one INPUT file"));
  }
  if (const QString problem = flagsForOtherViews(parser, *view, parser.value(QStringLiteral("view")));
      !problem.isEmpty()) {
    return fail(problem);
  }
  for (const QString& input : inputs) {
    const QString mismatch = viewMismatch(*view, parser.value(QStringLiteral("view")), input);
    if (!mismatch.isEmpty()) return fail(mismatch);
  }
  const QString out = parser.value(QStringLiteral("screenshot"));
  if (const QString problem = screenshotOutputProblem(out); !problem.isEmpty()) return fail(problem);
  std::optional<int> step;
  if (parser.isSet(QStringLiteral("step"))) {
    bool ok = false;
    step = parser.value(QStringLiteral("step")).toInt(&ok);
    if (!ok || *step < 0) {
      return fail(QApplication::translate("main", "--step: expected a step number >= 0, got '%1'")
                      .arg(parser.value(QStringLiteral("step"))));
    }
  }
  ScreenshotOptions options;
  options.step = step;
  if (parser.isSet(QStringLiteral("bucket"))) {
    bool ok = false;
    const int bucket = parser.value(QStringLiteral("bucket")).toInt(&ok);
    if (!ok || bucket < 0) {
      return fail(QApplication::translate("main", "--bucket: expected a bucket number >= 0, got '%1'")
                      .arg(parser.value(QStringLiteral("bucket"))));
    }
    options.bucket = bucket;
  }
  if (parser.isSet(QStringLiteral("algorithm"))) {
    options.algorithm = parseCollectiveAlgorithm(parser.value(QStringLiteral("algorithm")));
    if (!options.algorithm) {
      return fail(QApplication::translate("main", "--algorithm: expected ring, tree or halving_doubling, got '%1'")
                      .arg(parser.value(QStringLiteral("algorithm"))));
    }
  }
  if (parser.isSet(QStringLiteral("channel")) && parser.value(QStringLiteral("channel")) != u"all") {
    bool ok = false;
    const int channel = parser.value(QStringLiteral("channel")).toInt(&ok);
    if (!ok || channel < 0) {
      return fail(QApplication::translate("main", "--channel: expected a channel number >= 0 or all, got '%1'")
                      .arg(parser.value(QStringLiteral("channel"))));
    }
    options.channel = channel;
  }
  if (parser.isSet(QStringLiteral("expand"))) {
    for (const QString& item : parser.value(QStringLiteral("expand")).split(u',')) {
      bool ok = false;
      const int server = item.trimmed().toInt(&ok);
      if (!ok || server < 0) {
        return fail(QApplication::translate("main", "--expand: expected server numbers like 0,3, got '%1'")
                        .arg(parser.value(QStringLiteral("expand"))));
      }
      options.expand.push_back(server);
    }
  }
  if (parser.isSet(QStringLiteral("group"))) {
    const QStringList parts = parser.value(QStringLiteral("group")).split(u':');
    bool ok = parts.size() == 2;
    const int index = ok ? parts[1].toInt(&ok) : 0;
    const QString kinds[] = {QStringLiteral("tensor"), QStringLiteral("context"), QStringLiteral("pipeline"),
                             QStringLiteral("data")};
    const auto kind = ok ? std::find(std::begin(kinds), std::end(kinds), parts[0]) : std::end(kinds);
    if (kind == std::end(kinds) || index < 0) {
      return fail(QApplication::translate(
                      "main",
                      "--group: expected tensor, context, pipeline or data and a group number, like data:3, "
                      "got '%1'")
                      .arg(parser.value(QStringLiteral("group"))));
    }
    const LayoutGroupKind kindValues[] = {LayoutGroupKind::Tensor, LayoutGroupKind::Context, LayoutGroupKind::Pipeline,
                                          LayoutGroupKind::Data};
    options.group = std::pair(kindValues[std::distance(std::begin(kinds), kind)], index);
  }
  options.allLanes = parser.isSet(QStringLiteral("all-lanes"));
  QSize size;  // empty: the view's default (a timeline sized to its lanes)
  if (parser.isSet(QStringLiteral("size"))) {
    const QStringList wh = parser.value(QStringLiteral("size")).split(u'x');
    bool okW = false;
    bool okH = false;
    if (wh.size() == 2) size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
    const auto inRange = [](int side) { return side >= 100 && side <= kMaxScreenshotSide; };
    if (!okW || !okH || !inRange(size.width()) || !inRange(size.height())) {
      return fail(QApplication::translate("main", "--size: expected WIDTHxHEIGHT from 100x100 to %1x%1, got '%2'")
                      .arg(kMaxScreenshotSide)
                      .arg(parser.value(QStringLiteral("size"))));
    }
  }
  if (parser.isSet(QStringLiteral("time"))) {
    const QStringList range = parser.value(QStringLiteral("time")).split(u':');
    try {
      if (range.size() != 2) throw std::invalid_argument("");
      const auto from = syncsim::parse_duration(range[0].trimmed().toStdString());
      const auto to = syncsim::parse_duration(range[1].trimmed().toStdString());
      if (to <= from) throw std::invalid_argument("");
      options.timeRangePs = std::pair<qint64, qint64>{from.ps(), to.ps()};
    } catch (const std::exception&) {
      return fail(QApplication::translate("main",
                                          "--time: expected FROM:TO with units and FROM < TO, like 30ms:33ms, "
                                          "got '%1'")
                      .arg(parser.value(QStringLiteral("time"))));
    }
  }
  options.size = size;
  Screenshot shot;
  if (*view == ViewKind::Convergence) {
    std::vector<ConvergenceRun> runs;
    try {
      for (const QString& input : inputs) runs.push_back(loadConvergenceRun(input));
    } catch (const std::exception& e) {
      return fail(QString::fromUtf8(e.what()));
    }
    shot = renderConvergenceScreenshot(std::move(runs), size);
  } else {
    LoadedDocument doc;
    try {
      doc = loadDocument(inputs.front());
    } catch (const std::exception& e) {
      return fail(QString::fromUtf8(e.what()));
    }
    shot = renderScreenshot(doc, *view, options);
  }
  if (!shot.error.isEmpty()) return fail(shot.error);
  if (const QString problem = saveScreenshot(shot.image, out); !problem.isEmpty()) return fail(problem);
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  // A screenshot (or --help) never shows a window, so it needs no display: the offscreen platform, unless one was
  // chosen. (A Qt program with no display and no platform aborts before main can say anything.)
  for (int i = 1; i < argc; ++i) {
    const QByteArray arg(argv[i]);
    const bool windowless = arg == "--screenshot" || arg.startsWith("--screenshot=") || arg == "--help" || arg == "-h";
    if (windowless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
      qputenv("QT_QPA_PLATFORM", "offscreen");
    }
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("syncsim"));
  QApplication::setApplicationName(QStringLiteral("syncsim-gui"));
  installTranslators(app, requestedLocale(QApplication::arguments()));

  QCommandLineParser parser;
  parser.setApplicationDescription(QApplication::translate(
      "main", "Shows syncsim runs: timeline, ring AllReduce steps, scaling charts, convergence."));
  parser.addHelpOption();
  parser.addPositionalArgument(
      QStringLiteral("INPUT"),
      QApplication::translate("main",
                              "A scenario (.yaml), a trace or report (.json) or a sweep (.csv); --view "
                              "convergence takes several reports or scenarios"));
  parser.addOptions({
      {QStringLiteral("screenshot"), QApplication::translate("main", "Render a view to OUT.png without a window."),
       QStringLiteral("OUT.png")},
      {QStringLiteral("view"),
       QApplication::translate("main", "The view to render: timeline, ring, jobs, scaling or convergence."),
       QStringLiteral("VIEW"), QStringLiteral("timeline")},
      {QStringLiteral("step"), QApplication::translate("main", "Ring step to show (timeline: the cursor at it)."),
       QStringLiteral("K")},
      {QStringLiteral("bucket"),
       QApplication::translate(
           "main",
           "Ring view: follow this bucket's first AllReduce (default: the first bucket that ran as a ring, else 0)."),
       QStringLiteral("B")},
      {QStringLiteral("algorithm"),
       QApplication::translate("main",
                               "Ring view: animate ring, tree or halving_doubling instead of what the bucket ran."),
       QStringLiteral("ALGO")},
      {QStringLiteral("channel"),
       QApplication::translate("main",
                               "Ring view: show this one of the simulator's channels (default: all, summed per link)."),
       QStringLiteral("K|all")},
      {QStringLiteral("expand"),
       QApplication::translate("main",
                               "Ring and jobs views: show these servers with their GPUs, e.g. 0,3 (default: by size)."),
       QStringLiteral("LIST")},
      {QStringLiteral("group"),
       QApplication::translate("main",
                               "Ring view of a model-parallel run: animate this group's own collective, e.g. "
                               "tensor:0, pipeline:0 or data:3 (default: the buckets' AllReduce)."),
       QStringLiteral("KIND:N")},
      {QStringLiteral("size"),
       QApplication::translate("main", "Screenshot size, e.g. 1400x420 (default: fitted to the view)."),
       QStringLiteral("WxH")},
      {QStringLiteral("all-lanes"),
       QApplication::translate("main", "Timeline screenshot: link and collective lanes too, not only GPUs.")},
      {QStringLiteral("time"), QApplication::translate("main", "Timeline screenshot: only this time window."),
       QStringLiteral("FROM:TO")},
      {QStringLiteral("lang"), QApplication::translate("main", "Language, e.g. zh_CN (default: the system's)."),
       QStringLiteral("LANG")},
  });
  if (!parser.parse(QApplication::arguments())) return fail(parser.errorText());
  if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);

  try {
    if (parser.isSet(QStringLiteral("screenshot"))) return screenshot(parser);
    MainWindow window;
    window.show();
    // Several report.json files overlay in the Convergence view; otherwise the first file opens.
    const QStringList files = parser.positionalArguments();
    const bool reports = files.size() > 1 && std::all_of(files.begin(), files.end(), [](const QString& f) {
                           return documentKindOf(f) == DocumentKind::Report;
                         });
    if (reports) {
      window.addConvergenceReports(files);
    } else if (!files.isEmpty()) {
      window.openFile(files.front());
    }
    return QApplication::exec();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "syncsim-gui: internal error: %s\n", e.what());
    return 1;
  }
}
