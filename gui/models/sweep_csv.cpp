#include "models/sweep_csv.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"

namespace {

[[noreturn]] void fail(const QString& source, int line, const QString& message) {
  throw syncsim::InputError(message.toStdString(), syncsim::SourceLocation{source.toStdString(), line, 0});
}

// RFC 4180 fields: commas inside double quotes, "" for a quote.
QStringList splitCsvLine(const QString& line) {
  QStringList fields;
  QString field;
  bool quoted = false;
  for (qsizetype i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (quoted) {
      if (c == u'"' && i + 1 < line.size() && line[i + 1] == u'"') {
        field += u'"';
        ++i;
      } else if (c == u'"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == u'"') {
      quoted = true;
    } else if (c == u',') {
      fields << field.trimmed();
      field.clear();
    } else {
      field += c;
    }
  }
  fields << field.trimmed();
  return fields;
}

std::optional<int> findColumn(const QStringList& header, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto it = std::find_if(header.begin(), header.end(), [name](const QString& h) {
      return h.compare(QLatin1String(name), Qt::CaseInsensitive) == 0;
    });
    if (it != header.end()) return static_cast<int>(it - header.begin());
  }
  return std::nullopt;
}

bool isNumber(const QString& s) {
  bool ok = false;
  s.toDouble(&ok);
  return ok;
}

bool isDetailColumn(const QString& name) {
  return std::any_of(std::begin(kDetailColumns), std::end(kDetailColumns),
                     [&](const char* d) { return name.compare(QLatin1String(d), Qt::CaseInsensitive) == 0; });
}

}  // namespace

QString ScalingSeries::toolTip(std::size_t point) const {
  QStringList lines{description.isEmpty() ? config : description};
  if (point < points.size()) {
    const ScalingPoint& p = points[point];
    lines << QCoreApplication::translate("SweepCsv", "%1 GPUs: %2 samples/s, %3% scaling efficiency")
                 .arg(p.gpus)
                 .arg(p.throughput, 0, 'f', 1)
                 .arg(p.efficiency * 100, 0, 'f', 1);
    lines << p.details;
  }
  return lines.join(u'\n');
}

double ScalingSeries::idealThroughput(int gpus) const {
  if (points.empty() || points.front().gpus <= 0) return 0;
  return points.front().throughput * gpus / points.front().gpus;
}

std::size_t ScalingData::pointCount() const {
  std::size_t n = 0;
  for (const ScalingSeries& s : series) n += s.points.size();
  return n;
}

ScalingData parseSweepCsv(std::string_view text, const QString& source) {
  const QStringList lines = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()))
                                .split(u'\n');  // trimmed() below also drops a \r of CRLF files
  int headerLine = 0;
  // Blank lines, and `# ...` comments such as the fingerprint line `syncsim sweep -o` writes first, precede the header.
  while (headerLine < lines.size() &&
         (lines[headerLine].trimmed().isEmpty() || lines[headerLine].trimmed().startsWith(u'#')))
    ++headerLine;
  if (headerLine == lines.size())
    fail(source, 1, QCoreApplication::translate("SweepCsv", "empty file: expected a CSV header line"));
  const QStringList header = splitCsvLine(lines[headerLine].trimmed());
  const auto gpus = findColumn(header, {"gpus", "workers", "ranks", "n"});
  const auto throughput = findColumn(header, {"samples_per_second", "samples_per_s", "throughput", "samples/s"});
  const auto efficiency = findColumn(header, {"scaling_efficiency", "efficiency"});
  const auto config = findColumn(header, {"config", "configuration", "label", "name"});
  if (!gpus)
    fail(source, headerLine + 1,
         QCoreApplication::translate("SweepCsv", "no GPU count column (gpus, workers, ranks or n)"));
  if (!throughput) {
    fail(source, headerLine + 1,
         QCoreApplication::translate("SweepCsv", "no throughput column (samples_per_second, throughput or samples/s)"));
  }

  struct Row {
    QStringList fields;
    int line;
  };
  std::vector<Row> rows;
  for (int i = headerLine + 1; i < lines.size(); ++i) {
    if (lines[i].trimmed().isEmpty()) continue;
    QStringList fields = splitCsvLine(lines[i].trimmed());
    if (fields.size() != header.size()) {  // a quoted newline inside a cell is not supported either
      fail(source, i + 1,
           QCoreApplication::translate("SweepCsv", "%1 fields, the header has %2")
               .arg(fields.size())
               .arg(header.size()));
    }
    rows.push_back({std::move(fields), i + 1});
  }
  // Without a config column, a configuration is told apart by the columns that take more than one value at the
  // same GPU count (an algorithm, a batch size), not by those that follow from it (nodes). Candidates: in a
  // `syncsim sweep` CSV the varied keys (the columns before "scenario"), elsewhere the non-numeric columns.
  std::vector<int> labelColumns;
  if (config) {
    labelColumns.push_back(*config);
  } else {
    const auto scenarioColumn = findColumn(header, {"scenario"});
    for (int c = 0; c < header.size(); ++c) {
      if (c == *gpus || c == *throughput || (efficiency && c == *efficiency) || isDetailColumn(header[c])) continue;
      if (scenarioColumn ? c >= *scenarioColumn
                         : std::all_of(rows.begin(), rows.end(), [c](const Row& r) { return isNumber(r.fields[c]); })) {
        continue;
      }
      std::map<QString, QString> valueAtGpus;
      bool varies = false;
      for (const Row& r : rows) {
        const auto [it, inserted] = valueAtGpus.try_emplace(r.fields[*gpus], r.fields[c]);
        varies = varies || (!inserted && it->second != r.fields[c]);
      }
      if (varies) labelColumns.push_back(c);
    }
  }

  std::map<QString, ScalingSeries> byConfig;
  std::vector<QString> order;
  bool anyEfficiency = false;
  std::vector<int> detailColumns;
  for (int c = 0; c < header.size(); ++c) {
    if (isDetailColumn(header[c])) detailColumns.push_back(c);
  }
  for (const Row& r : rows) {
    QStringList label;
    QStringList described;
    for (const int c : labelColumns) {
      label << r.fields[c];
      described << header[c] + u'=' + r.fields[c];
    }
    const QString key = label.join(QStringLiteral(" / "));
    bool okG = false;
    bool okT = false;
    const double g = r.fields[*gpus].toDouble(&okG);
    const double t = r.fields[*throughput].toDouble(&okT);
    // In range before the cast: a count past int's range is not a whole GPU count here (and converting it is UB).
    if (!okG || !(g >= 1 && g <= std::numeric_limits<int>::max()) || g != std::floor(g)) {
      fail(source, r.line,
           QCoreApplication::translate("SweepCsv", "%1: expected a whole GPU count, got '%2'")
               .arg(header[*gpus], r.fields[*gpus]));
    }
    if (!okT || t < 0) {
      fail(source, r.line,
           QCoreApplication::translate("SweepCsv", "%1: expected a throughput, got '%2'")
               .arg(header[*throughput], r.fields[*throughput]));
    }
    ScalingPoint p{static_cast<int>(g), t, -1, {}};
    for (const int c : detailColumns) {
      if (!r.fields[c].isEmpty()) p.details << header[c] + QStringLiteral(": ") + r.fields[c];
    }
    if (efficiency && !r.fields[*efficiency].isEmpty()) {
      bool okE = false;
      p.efficiency = r.fields[*efficiency].toDouble(&okE);
      if (!okE) {
        fail(source, r.line,
             QCoreApplication::translate("SweepCsv", "%1: expected a number, got '%2'")
                 .arg(header[*efficiency], r.fields[*efficiency]));
      }
      anyEfficiency = anyEfficiency || p.efficiency > 1.5;
    }
    auto [it, inserted] = byConfig.try_emplace(key);
    if (inserted) {
      it->second.config = key.isEmpty() ? QCoreApplication::translate("SweepCsv", "sweep") : key;
      if (!config) it->second.description = described.join(QStringLiteral(", "));
      order.push_back(key);
    }
    it->second.points.push_back(p);
  }

  ScalingData out;
  for (const int c : labelColumns) {
    if (!config) out.configurationColumns << header[c];
  }
  for (const QString& key : order) {
    ScalingSeries s = std::move(byConfig[key]);
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const ScalingPoint& a, const ScalingPoint& b) { return a.gpus < b.gpus; });
    for (ScalingPoint& p : s.points) {
      if (p.efficiency < 0) {  // no efficiency given for this point
        const double ideal = s.idealThroughput(p.gpus);
        p.efficiency = ideal > 0 ? p.throughput / ideal : 0;
      } else if (anyEfficiency) {
        p.efficiency /= 100;  // the column is in percent
      }
    }
    out.series.push_back(std::move(s));
  }
  if (out.series.empty())
    fail(source, headerLine + 1, QCoreApplication::translate("SweepCsv", "no data rows after the header"));
  return out;
}

ScalingData readSweepCsv(const QString& path) {
  // The CLI's checked reader: a FIFO, a device or a folder is refused before it is opened, and the size is capped.
  return parseSweepCsv(syncsim::read_input_file(path.toStdString(), "sweep CSV"), path);
}
