// The real ResNet-50 trace matched to the catalog's resnet50 (layer_profile_match.hpp): which rule matched each
// layer, per-layer times equal to the trace's ranges, totals conserved; mismatched models name their first layer.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/compute/layer_profile_match.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {
const ProfileTrace& real_trace() {
  static const ProfileTrace trace = read_profile_trace(std::string(SYNCSIM_TORCH_PROFILER_DATA "/resnet50-cpu.json"));
  return trace;
}

std::size_t index_of(const ModelSpec& model, const std::string& name) {
  for (std::size_t i = 0; i < model.layers().size(); ++i) {
    if (model.layers()[i].name == name) return i;
  }
  FAIL("no layer " << name);
  return 0;
}

std::string mismatch(const ModelSpec& model, const ProfileTrace& trace) {
  try {
    match_layers(model, trace);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

ProfiledCall call(std::string module, int n = 1, int of = 1) {
  ProfiledCall c;
  c.module = std::move(module);
  c.call = n;
  c.calls = of;
  c.forward = SimTime::from_us(10);
  return c;
}
}  // namespace

TEST_CASE("the real trace gives every resnet50 layer its measured times", "[profile]") {
  const ModelSpec model = find_model("resnet50");
  const LayerProfile p = match_layers(model, real_trace());
  REQUIRE(p.forward.size() == 174);
  CHECK(p.module_calls == 158);
  // 48 ReLUs by call number (16 blocks x 3 calls of one module), 8 downsample layers by order (nn.Sequential's
  // 0 and 1), 16 residual adds from the time between modules, the other 102 by name.
  CHECK(p.count(ProfileMatch::call) == 48);
  CHECK(p.count(ProfileMatch::order) == 8);
  CHECK(p.count(ProfileMatch::between) == 16);
  CHECK(p.count(ProfileMatch::name) == 102);

  // Hand-read from the trace (microseconds): the second ReLU of layer1.0 ran 38 forward, its backward range
  // (the middle of three) 130; the downsample conv 13,937 and 21,068; layer1.0's add the 150 between
  // downsample.1's end and the third ReLU call.
  const auto at = [&](const std::string& name) { return index_of(model, name); };
  CHECK(p.forward[at("layer1.0.relu2")] == SimTime::from_us(38));
  CHECK(p.backward[at("layer1.0.relu2")] == SimTime::from_us(130));
  CHECK(p.matched[at("layer1.0.downsample.conv")] == ProfileMatch::order);
  CHECK(p.forward[at("layer1.0.downsample.conv")] == SimTime::from_us(13'937));
  CHECK(p.backward[at("layer1.0.downsample.conv")] == SimTime::from_us(21'068));
  CHECK(p.forward[at("layer1.0.add")] == SimTime::from_us(150));
  CHECK(p.backward[at("layer1.0.add")] == SimTime::zero());

  // Conserved: the module ranges (524,457 us) plus the adds' 1,645 us are the layers' forward; with what no layer
  // took (the small gaps between modules, the loss) they are the forward phase.
  CHECK(p.total_forward() == SimTime::from_us(524'457 + 1'645));
  CHECK(p.total_forward() + p.unattributed_forward == real_trace().forward);
  CHECK(p.total_backward() == SimTime::from_us(1'390'163));
  CHECK(p.total_backward() + p.unattributed_backward == real_trace().backward);
}

TEST_CASE("a trace of another model names the first layer without a module", "[profile]") {
  // ResNet-101's third stage has 23 blocks, ResNet-50's 6: its layer3.6 meets ResNet-50's layer4.0.
  const std::string deeper = mismatch(find_model("resnet101"), real_trace());
  CHECK_THAT(deeper, Catch::Contains("resnet50-cpu.json: layer "));
  CHECK_THAT(deeper, Catch::Contains("of model resnet101, 'layer3.6.conv1', matches no module in the trace: expected "
                                     "'nn.Module: layer3.6.conv1'"));
  CHECK_THAT(deeper, Catch::Contains("there is 'nn.Module: layer4.0.conv1'"));
  CHECK_THAT(mismatch(find_model("vgg16"), real_trace()),
             Catch::Contains("layer 1 of model vgg16, 'features.conv1', matches no module in the trace: expected "
                             "'nn.Module: features.conv1' (or a module of its parent 'features' that no other layer "
                             "is named for); the trace's module call 1 of 158 there is 'nn.Module: conv1'"));
}

TEST_CASE("calls left over, or layers past the trace's end, are errors", "[profile]") {
  ProfileTrace trace;
  trace.source = "t.json";
  trace.calls = {call("fc1"), call("fc2")};
  const ModelSpec one("one", {Layer{.name = "fc1", .params = 10, .forward_flops = 20}});
  CHECK_THAT(mismatch(one, trace), Catch::Contains("the trace's module call 2 of 2, 'nn.Module: fc2', matches no layer "
                                                   "of model one: its layers end at 'fc1'"));
  const ModelSpec three("three", {Layer{.name = "fc1", .params = 10, .forward_flops = 20},
                                  Layer{.name = "fc2", .params = 10, .forward_flops = 20},
                                  Layer{.name = "fc3", .params = 10, .forward_flops = 20}});
  CHECK_THAT(mismatch(three, trace),
             Catch::Contains("layer 3 of model three, 'fc3', matches no module in the trace: "
                             "expected 'nn.Module: fc3' (or a module of its parent '' that no "
                             "other layer is named for); the trace's 2 module calls have ended"));
}

TEST_CASE("at the profile's batch the times are the trace's, elsewhere they follow the roofline's batch dependence",
          "[profile]") {
  const ModelSpec model = find_model("resnet50");
  const LayerProfile p = match_layers(model, real_trace());
  const ComputeModel roofline(find_gpu("A100-SXM4-80GB"), Precision::fp32);
  const ProfiledTimes same = profiled_times(p, roofline, model, 2, 2);
  CHECK(same.forward == p.forward);
  CHECK(same.backward == p.backward);
  const ProfiledTimes big = profiled_times(p, roofline, model, 2, 64);
  for (std::size_t i = 0; i < model.layers().size(); ++i) {
    const Layer& layer = model.layers()[i];
    const double ratio = roofline.forward(layer, 64).seconds() / roofline.forward(layer, 2).seconds();
    CHECK(big.forward[i].seconds() == Approx(p.forward[i].seconds() * ratio));
    CHECK(big.backward[i].seconds() == Approx(p.backward[i].seconds() * ratio));
    CHECK(ratio <= 32.0 + 1e-9);  // never more than the batch ratio: the weights and launches are per batch
  }
}
