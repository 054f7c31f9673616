#include "models/layout_groups.h"

#include <QCoreApplication>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/rank_layout.hpp"

namespace {

syncsim::RankLayout rankLayout(const LayoutGroupSizes& s) {
  return syncsim::RankLayout({.tensor = s.tensor, .context = s.context, .data = s.data, .pipeline = s.pipeline});
}

std::vector<std::vector<int>> asInts(const std::vector<std::vector<std::size_t>>& groups) {
  std::vector<std::vector<int>> out;
  out.reserve(groups.size());
  for (const auto& g : groups) out.emplace_back(g.begin(), g.end());
  return out;
}

}  // namespace

LayoutGroups::LayoutGroups(LayoutGroupSizes sizes) : m_sizes(sizes) {
  (void)rankLayout(m_sizes);  // checks the sizes
  if (m_sizes.expert < 1 || m_sizes.data % m_sizes.expert != 0) {
    throw syncsim::InputError("expert parallelism " + std::to_string(m_sizes.expert) +
                              " does not divide the data-parallel size " + std::to_string(m_sizes.data));
  }
}

int LayoutGroups::rankCount() const {
  return m_sizes.tensor * m_sizes.context * m_sizes.pipeline * m_sizes.data;
}

std::vector<LayoutGroupKind> LayoutGroups::kinds() const {
  std::vector<LayoutGroupKind> out;
  if (m_sizes.tensor > 1) out.push_back(LayoutGroupKind::Tensor);
  if (m_sizes.context > 1) out.push_back(LayoutGroupKind::Context);
  if (m_sizes.pipeline > 1) out.push_back(LayoutGroupKind::Pipeline);
  if (m_sizes.data > 1) out.push_back(LayoutGroupKind::Data);
  if (m_sizes.expert > 1) out.push_back(LayoutGroupKind::Expert);
  return out;
}

std::vector<std::vector<int>> LayoutGroups::groupsOf(LayoutGroupKind kind) const {
  const syncsim::RankLayout layout = rankLayout(m_sizes);
  switch (kind) {
    case LayoutGroupKind::Tensor:
      return asInts(layout.groups(syncsim::GroupKind::tensor));
    case LayoutGroupKind::Context:
      return asInts(layout.groups(syncsim::GroupKind::context));
    case LayoutGroupKind::Data:
      return asInts(layout.groups(syncsim::GroupKind::data));
    case LayoutGroupKind::Expert:
      return asInts(layout.expert_groups(m_sizes.expert));
    case LayoutGroupKind::Pipeline: {
      // Every boundary's pairs: the ranks of stage k and k + 1 with the same coordinates (rank and rank + a stage).
      std::vector<std::vector<int>> pairs;
      const int perStage = rankCount() / m_sizes.pipeline;
      for (int r = 0; r + perStage < rankCount(); ++r) pairs.push_back({r, r + perStage});
      return pairs;
    }
  }
  return {};
}

int LayoutGroups::groupCount(LayoutGroupKind kind) const {
  return static_cast<int>(groupsOf(kind).size());
}

std::vector<int> LayoutGroups::members(LayoutGroupKind kind, int index) const {
  std::vector<std::vector<int>> groups = groupsOf(kind);
  if (index < 0 || index >= static_cast<int>(groups.size())) return {};
  return std::move(groups[static_cast<std::size_t>(index)]);
}

syncsim::CollectiveOp LayoutGroups::collective(LayoutGroupKind kind) {
  switch (kind) {
    case LayoutGroupKind::Context:
      return syncsim::CollectiveOp::all_gather;
    case LayoutGroupKind::Pipeline:
      return syncsim::CollectiveOp::broadcast;
    case LayoutGroupKind::Expert:
      return syncsim::CollectiveOp::alltoall;
    case LayoutGroupKind::Tensor:
    case LayoutGroupKind::Data:
      break;
  }
  return syncsim::CollectiveOp::allreduce;
}

QString LayoutGroups::kindName(LayoutGroupKind kind) {
  switch (kind) {
    case LayoutGroupKind::Tensor:
      return QCoreApplication::translate("LayoutGroups", "Tensor");
    case LayoutGroupKind::Context:
      return QCoreApplication::translate("LayoutGroups", "Context");
    case LayoutGroupKind::Pipeline:
      return QCoreApplication::translate("LayoutGroups", "Pipeline");
    case LayoutGroupKind::Data:
      return QCoreApplication::translate("LayoutGroups", "Data");
    case LayoutGroupKind::Expert:
      return QCoreApplication::translate("LayoutGroups", "Expert");
  }
  return {};
}

QString LayoutGroups::collectiveText(LayoutGroupKind kind) {
  switch (kind) {
    case LayoutGroupKind::Tensor:
      return QCoreApplication::translate("LayoutGroups", "AllReduce of the activations, per block");
    case LayoutGroupKind::Context:
      return QCoreApplication::translate("LayoutGroups", "AllGather of K and V, per block");
    case LayoutGroupKind::Pipeline:
      return QCoreApplication::translate("LayoutGroups", "an activation to the next stage, per micro-batch");
    case LayoutGroupKind::Data:
      return QCoreApplication::translate("LayoutGroups", "AllReduce of the gradient buckets");
    case LayoutGroupKind::Expert:
      return QCoreApplication::translate("LayoutGroups", "all-to-all of the routed tokens");
  }
  return {};
}
