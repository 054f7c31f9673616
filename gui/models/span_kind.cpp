#include "models/span_kind.h"

#include <QCoreApplication>

#include "syncsim/run/job_timeline.hpp"
#include "syncsim/trace/trace.hpp"

namespace cat = syncsim::trace::category;

namespace {

namespace job = syncsim::run::job_category;

SpanKind jobSpanKind(std::string_view category) {
  if (category == job::training) return SpanKind::JobTraining;
  if (category == job::checkpoint_save) return SpanKind::CheckpointSave;
  if (category == job::checkpoint_upload) return SpanKind::CheckpointUpload;
  if (category == job::lost_progress) return SpanKind::LostProgress;
  if (category == job::failure) return SpanKind::Failure;
  if (category == job::detection) return SpanKind::Detection;
  if (category == job::spare_swap) return SpanKind::SpareSwap;
  if (category == job::repair_wait) return SpanKind::RepairWait;
  if (category == job::restart) return SpanKind::Restart;
  if (category == job::restore) return SpanKind::Restore;
  if (category == job::spare_repair) return SpanKind::SpareRepair;
  return SpanKind::Other;
}

}  // namespace

SpanKind spanKindFromCategory(std::string_view category) {
  if (category == cat::forward) return SpanKind::Forward;
  if (category == cat::backward) return SpanKind::Backward;
  if (category == cat::communication) return SpanKind::Communication;
  if (category == cat::idle) return SpanKind::Idle;
  if (category == cat::optimizer) return SpanKind::Optimizer;
  if (category == cat::collective) return SpanKind::Collective;
  if (category == cat::collective_step) return SpanKind::CollectiveStep;
  if (category == cat::fault) return SpanKind::Fault;
  return jobSpanKind(category);
}

QColor spanKindColor(SpanKind kind) {
  switch (kind) {
    case SpanKind::Forward:
      return QColor(0x56, 0xB4, 0xE9);  // sky blue
    case SpanKind::Backward:
      return QColor(0x00, 0x72, 0xB2);  // blue
    case SpanKind::Communication:
      return QColor(0xE6, 0x9F, 0x00);  // orange
    case SpanKind::Idle:
      return QColor(0xD0, 0xD0, 0xD0);  // light grey
    case SpanKind::Optimizer:
      return QColor(0x00, 0x9E, 0x73);  // bluish green
    case SpanKind::Collective:
      return QColor(0xD5, 0x5E, 0x00);  // vermillion
    case SpanKind::CollectiveStep:
      return QColor(0xCC, 0x79, 0xA7);  // reddish purple
    case SpanKind::Fault:
      return QColor(0x20, 0x20, 0x20);  // near black
    case SpanKind::JobTraining:
      return QColor(0x88, 0xCC, 0xEE);  // cyan
    case SpanKind::CheckpointSave:
      return QColor(0xDD, 0xCC, 0x77);  // sand
    case SpanKind::CheckpointUpload:
      return QColor(0x99, 0x99, 0x33);  // olive
    case SpanKind::LostProgress:
      return QColor(0xCC, 0x66, 0x77);  // rose
    case SpanKind::Failure:
      return QColor(0x00, 0x00, 0x00);  // black: an instant, drawn over its pixel
    case SpanKind::Detection:
      return QColor(0xAA, 0x44, 0x99);  // purple
    case SpanKind::SpareSwap:
      return QColor(0x44, 0xAA, 0x99);  // teal
    case SpanKind::RepairWait:
      return QColor(0x88, 0x22, 0x55);  // wine
    case SpanKind::Restart:
      return QColor(0x33, 0x22, 0x88);  // indigo
    case SpanKind::Restore:
      return QColor(0x11, 0x77, 0x33);  // green
    case SpanKind::SpareRepair:
      return QColor(0xBB, 0xBB, 0xBB);  // grey
    case SpanKind::Other:
      break;
  }
  return QColor(0x99, 0x99, 0x66);
}

QString spanKindName(SpanKind kind) {
  switch (kind) {
    case SpanKind::Forward:
      return QCoreApplication::translate("SpanKind", "Forward");
    case SpanKind::Backward:
      return QCoreApplication::translate("SpanKind", "Backward");
    case SpanKind::Communication:
      return QCoreApplication::translate("SpanKind", "Communication");
    case SpanKind::Idle:
      return QCoreApplication::translate("SpanKind", "Idle");
    case SpanKind::Optimizer:
      return QCoreApplication::translate("SpanKind", "Optimizer");
    case SpanKind::Collective:
      return QCoreApplication::translate("SpanKind", "Collective");
    case SpanKind::CollectiveStep:
      return QCoreApplication::translate("SpanKind", "Collective step");
    case SpanKind::Fault:
      return QCoreApplication::translate("SpanKind", "Fault");
    case SpanKind::JobTraining:
      return QCoreApplication::translate("SpanKind", "Training");
    case SpanKind::CheckpointSave:
      return QCoreApplication::translate("SpanKind", "Checkpoint save");
    case SpanKind::CheckpointUpload:
      return QCoreApplication::translate("SpanKind", "Checkpoint upload");
    case SpanKind::LostProgress:
      return QCoreApplication::translate("SpanKind", "Lost progress");
    case SpanKind::Failure:
      return QCoreApplication::translate("SpanKind", "Failure");
    case SpanKind::Detection:
      return QCoreApplication::translate("SpanKind", "Detection");
    case SpanKind::SpareSwap:
      return QCoreApplication::translate("SpanKind", "Spare swap");
    case SpanKind::RepairWait:
      return QCoreApplication::translate("SpanKind", "Repair wait");
    case SpanKind::Restart:
      return QCoreApplication::translate("SpanKind", "Restart");
    case SpanKind::Restore:
      return QCoreApplication::translate("SpanKind", "Restore");
    case SpanKind::SpareRepair:
      return QCoreApplication::translate("SpanKind", "Spare in repair");
    case SpanKind::Other:
      break;
  }
  return QCoreApplication::translate("SpanKind", "Other");
}
