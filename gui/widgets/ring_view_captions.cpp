// RingView's captions: the title above the drawing (the collective, its bucket and machine, the step) and the
// footer below it (the legend, and on a machine the busiest links), each in a box as tall as its text wraps to at
// the view's width. The drawing gets what is left between them (RingView::drawingArea), so a long title or footer
// pushes the drawing in instead of being clipped or drawn over it.
#include <QFontMetrics>
#include <algorithm>

#include "models/collective_traffic.h"
#include "models/ring_step_model.h"
#include "models/ring_sync.h"
#include "models/topology_layout.h"
#include "widgets/ring_view.h"

namespace {

// The title's box: kTitleMargin from the sides, kTitleTop from the top, at least kHeaderHeight - kTitleTop - 2 tall
// (two lines), taller when it wraps to more.
constexpr int kHeaderHeight = 48;
constexpr int kTitleMargin = 12;
constexpr int kTitleTop = 4;
// The footer's box: as wide as the title's, kFooterBottom above the bottom edge, at least kFooterHeight -
// kFooterBottom tall (four lines of its font at the default size), taller when it wraps to more.
constexpr int kFooterHeight = 64;
constexpr int kFooterBottom = 4;

// The height `text` wraps to in `font` at `width` (the painter wraps it the same way: Qt::TextWordWrap).
int wrappedHeight(const QFont& font, int width, const QString& text) {
  return QFontMetrics(font).boundingRect(QRect(0, 0, width, 1 << 20), Qt::AlignLeft | Qt::TextWordWrap, text).height();
}

}  // namespace

QFont RingView::titleFont() const {
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 1.2);
  f.setBold(true);
  return f;
}

QRect RingView::titleRect() const {
  const QString text = titleText();
  const int width = std::max(1, this->width() - 2 * kTitleMargin);
  // Measuring wrapped text is the costly part, and the drawing asks for this once per rank: measure once per title.
  if (text != m_measuredTitle || width != m_measuredTitleWidth) {
    m_measuredTitle = text;
    m_measuredTitleWidth = width;
    m_measuredTitleHeight = wrappedHeight(titleFont(), width, text);
  }
  return QRect(kTitleMargin, kTitleTop, width, std::max(kHeaderHeight - kTitleTop - 2, m_measuredTitleHeight));
}

QFont RingView::footerFont() const {
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 0.9);
  return f;
}

QRect RingView::footerRect() const {
  return footerBelow(titleRect());
}

QRect RingView::footerBelow(const QRect& title) const {
  const int width = std::max(1, this->width() - 2 * kTitleMargin);
  // The footer's text is the same at every step, but asking for it walks every link: build and measure it once per
  // machine, traffic and width (updateRates and a new schedule forget it).
  if (!m_footerText) {
    m_footerText = footerText();
    m_measuredFooterWidth = -1;
  }
  if (width != m_measuredFooterWidth) {
    m_measuredFooterWidth = width;
    m_measuredFooterHeight = wrappedHeight(footerFont(), width, *m_footerText);
  }
  const int height = std::max(kFooterHeight - kFooterBottom, m_measuredFooterHeight);
  // Never over the title or the drawing's last row: a widget too short for all three clips the footer instead.
  const int top = std::max(this->height() - kFooterBottom - height, title.bottom() + 4);
  return QRect(kTitleMargin, top, width, std::max(0, this->height() - kFooterBottom - top));
}

QString RingView::titleText() const {
  const CollectiveSchedule& s = m_model->schedule();
  const int step = m_model->step();
  QString head = collectiveName(s);
  if (!m_group.isEmpty()) head = tr("%1 — %2").arg(m_group, head);
  if (m_bucket && m_bucket->has(TimelineSpan::HasBucket)) {
    head += tr(" of bucket %1").arg(m_bucket->bucket);
    if (m_bucket->has(TimelineSpan::HasBytes))
      head += tr(" (%1 MB)").arg(static_cast<double>(m_bucket->bytes) / 1e6, 0, 'f', 1);
  }
  head += tr(" on %1 ranks").arg(s.rankCount());
  if (drawsTopology() && !m_topology->description().isEmpty()) head += tr(" (%1)").arg(m_topology->description());
  const int channels = m_traffic ? m_traffic->channelCount() : 1;
  if (channels > 1) {
    head += m_channel ? tr(", channel %1 of %2").arg(*m_channel).arg(channels) : tr(", %1 channels").arg(channels);
  }
  if (m_bucket && m_traffic && !m_traffic->spec().protocol.isEmpty()) {
    head += tr(", %1").arg(m_traffic->spec().protocol.toUpper());
  }
  if (!m_note.isEmpty()) head += tr(" [%1]").arg(m_note);
  if (step >= s.stepCount()) {
    return head + (s.op() == syncsim::CollectiveOp::allreduce
                       ? tr(": done after %1 steps, every rank holds every piece fully reduced").arg(s.stepCount())
                       : tr(": done after %1 steps, every rank holds every piece").arg(s.stepCount()));
  }
  head += tr(": step %1 of %2, %3").arg(step + 1).arg(s.stepCount()).arg(s.phaseText(step));
  // On the circle the step's transfers all move the same share of the buffer (a fold aside): one rate says it.
  if (drawsTopology()) return head;
  if (const auto rate = transferRate(s.transfers(step).front().chunks)) {
    head += tr("; %1 GB/s per transfer").arg(formatRateGbps(*rate));
  }
  return head;
}

// The legend, and on a machine the busiest link of each class: what the channels shown put on it over the
// AllReduce against what it can carry, per direction.
QString RingView::footerText() const {
  const QString strips = tr("Strips: a rank's pieces of the buffer (channel %1), coloured per piece, filled by the "
                            "share of ranks summed in; black frame: fully reduced. ▲ sends, ▼ receives this step.")
                             .arg(m_model->schedule().channel());
  if (!drawsTopology()) {
    return strips + tr(" Coloured arrows: this step's transfers, with their rate.");
  }
  QString links = tr("Lit links: this step's transfers. ");
  if (!m_rates.empty()) {
    const QString whose = m_traffic->channelCount() == 1 ? QString()
                          : m_channel                    ? tr(", channel %1 alone").arg(*m_channel)
                                                         : tr(", all %1 channels").arg(m_traffic->channelCount());
    links += tr("Rates (GB/s per direction%1): the bytes the simulator put on a link over the AllReduce's "
                "%2 µs, against its capacity. Busiest:")
                 .arg(whose)
                 .arg(static_cast<double>(m_bucket->durationPs) / 1e6, 0, 'f', 1);
    const std::pair<TopologyEdge::Kind, QString> kinds[] = {{TopologyEdge::Kind::Network, tr("network")},
                                                            {TopologyEdge::Kind::NvLink, tr("NVLink")},
                                                            {TopologyEdge::Kind::Pcie, tr("PCIe")}};
    for (const auto& [kind, name] : kinds) {
      double best = 0;
      double capacity = 0;
      for (std::size_t d = 0; d < m_rates.size(); ++d) {
        const TopologyEdge& e = m_topology->edges()[d / 2];
        if (e.kind == kind && m_rates[d] > best) {
          best = m_rates[d];
          capacity = e.bytesPerSecond;
        }
      }
      if (best > 0) links += tr(" %1 %2 / %3").arg(name, formatRateGbps(best), formatRateGbps(capacity));
    }
    links += tr(". ");
    if (!m_channel && m_traffic->channelCount() > 1) {
      links += tr("Colour and width: the share of the link's capacity in use (blue: little, red: all). ");
    }
  }
  if (!m_topology->hostBoxes().empty()) links += tr("Click a server to show or hide its GPUs. ");
  return links + strips;
}
