#pragma once
// The failures the training engines model and how training recovers from them, one enum each, shared by the
// scenario (`faults:`), the engines and the report. Their names are the scenario's and the report's words.
//
//   worker_down   a rank stops                  restart_from_checkpoint  every rank goes back to the checkpoint
//   link_down     a link (both directions) goes  elastic                  the failed ranks leave, the rest go on
//                                                continue                 asynchronous training goes on without it
#include <array>
#include <string_view>
#include <utility>

namespace syncsim {

enum class FaultKind { worker_down, link_down };
enum class FaultPolicy { restart_from_checkpoint, continue_without, elastic };

// The one table of each enum's names: the scenario parses with it, to_string and the report print with it.
inline constexpr std::array<std::pair<std::string_view, FaultKind>, 2> kFaultKindNames{
    {{"worker_down", FaultKind::worker_down}, {"link_down", FaultKind::link_down}}};
inline constexpr std::array<std::pair<std::string_view, FaultPolicy>, 3> kFaultPolicyNames{
    {{"restart_from_checkpoint", FaultPolicy::restart_from_checkpoint},
     {"continue", FaultPolicy::continue_without},
     {"elastic", FaultPolicy::elastic}}};

std::string_view to_string(FaultKind kind);
std::string_view to_string(FaultPolicy policy);  // continue_without is written `continue`

}  // namespace syncsim
