#include "syncsim/compute/layer_profile_match.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

// The name a layer must have to take `call` by name or by call number.
std::string claim(const ProfiledCall& call) {
  return call.calls == 1 ? call.module : fmt::format("{}{}", call.module, call.call);
}

std::string_view parent(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : name.substr(0, dot);
}

std::string shown(const ProfiledCall& call) {
  return call.calls == 1 ? fmt::format("'nn.Module: {}'", call.module)
                         : fmt::format("call {} of {} of 'nn.Module: {}'", call.call, call.calls, call.module);
}

class Matcher {
 public:
  Matcher(const ModelSpec& model, const ProfileTrace& trace) : model_(model), trace_(trace) {
    for (const Layer& layer : model.layers()) layer_names_.insert(layer.name);
    for (const ProfiledCall& call : trace.calls) claims_.insert(claim(call));
  }

  LayerProfile run() {
    LayerProfile out;
    out.source = trace_.source;
    out.kernel_times = trace_.kernel_times;
    for (std::size_t i = 0; i < model_.layers().size(); ++i) take(i, out);
    if (next_ < trace_.calls.size()) {
      const ProfiledCall& left = trace_.calls[next_];
      fail(fmt::format("the trace's module call {} of {}, {}, matches no layer of model {}: its layers end at '{}'",
                       next_ + 1, trace_.calls.size(), shown(left), model_.name(), model_.layers().back().name));
    }
    out.module_calls = trace_.calls.size();
    out.unattributed_forward = std::max(SimTime::zero(), trace_.forward - out.total_forward());
    out.unattributed_backward = std::max(SimTime::zero(), trace_.backward - out.total_backward());
    return out;
  }

 private:
  std::optional<ProfileMatch> match(const Layer& layer, const ProfiledCall& call) const {
    if (layer.name == claim(call)) return call.calls == 1 ? ProfileMatch::name : ProfileMatch::call;
    const bool unclaimed = !claims_.contains(layer.name) && !layer_names_.contains(claim(call));
    if (unclaimed && parent(layer.name) == parent(call.module)) return ProfileMatch::order;
    return std::nullopt;
  }

  void take(std::size_t index, LayerProfile& out) {
    const Layer& layer = model_.layers()[index];
    const ProfiledCall* call = next_ < trace_.calls.size() ? &trace_.calls[next_] : nullptr;
    if (call) {
      if (const std::optional<ProfileMatch> how = match(layer, *call)) {
        out.forward.push_back(call->forward);
        out.backward.push_back(call->backward);
        out.matched.push_back(*how);
        ++next_;
        return;
      }
    }
    if (layer.params == 0 && !claims_.contains(layer.name)) {
      // An operation without a module: the forward time before the next call (or after the last), given once.
      const bool fresh = gap_taken_ != next_;
      gap_taken_ = next_;
      out.forward.push_back(!fresh ? SimTime::zero() : call ? call->gap_before : trace_.gap_after);
      out.backward.push_back(SimTime::zero());
      out.matched.push_back(ProfileMatch::between);
      return;
    }
    const std::string got =
        call ? fmt::format("the trace's module call {} of {} there is {}", next_ + 1, trace_.calls.size(), shown(*call))
             : fmt::format("the trace's {} module calls have ended", trace_.calls.size());
    fail(
        fmt::format("layer {} of model {}, '{}', matches no module in the trace: expected 'nn.Module: {}' (or a "
                    "module of its parent '{}' that no other layer is named for); {}",
                    index + 1, model_.name(), layer.name, layer.name, parent(layer.name), got));
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(message, SourceLocation{trace_.source, 0, 0});
  }

  const ModelSpec& model_;
  const ProfileTrace& trace_;
  std::set<std::string, std::less<>> layer_names_;
  std::set<std::string, std::less<>> claims_;
  std::size_t next_ = 0;
  std::size_t gap_taken_ = SIZE_MAX;
};

}  // namespace

std::size_t LayerProfile::count(ProfileMatch how) const {
  return static_cast<std::size_t>(std::count(matched.begin(), matched.end(), how));
}

SimTime LayerProfile::total_forward() const {
  SimTime total;
  for (SimTime t : forward) total += t;
  return total;
}

SimTime LayerProfile::total_backward() const {
  SimTime total;
  for (SimTime t : backward) total += t;
  return total;
}

LayerProfile match_layers(const ModelSpec& model, const ProfileTrace& trace) {
  return Matcher(model, trace).run();
}

ProfiledTimes profiled_times(const LayerProfile& profile, const ComputeModel& roofline, const ModelSpec& model,
                             std::int64_t profile_batch, std::int64_t batch) {
  ProfiledTimes out{profile.forward, profile.backward};
  if (batch == profile_batch) return out;
  for (std::size_t i = 0; i < model.layers().size(); ++i) {
    const Layer& layer = model.layers()[i];
    const double at_profile = roofline.forward(layer, profile_batch).seconds();
    const double ratio = at_profile > 0 ? roofline.forward(layer, batch).seconds() / at_profile
                                        : static_cast<double>(batch) / static_cast<double>(profile_batch);
    out.forward[i] = out.forward[i].scaled(ratio);
    out.backward[i] = out.backward[i].scaled(ratio);
  }
  return out;
}

}  // namespace syncsim
