#pragma once
// CnnBuilder: generates a convolutional network's layers from its architecture, one kernel per layer.
//
// It tracks the current feature map (per sample, C x H x W) and applies the layer math:
//
//   conv kh x kw, C -> C', g groups, output H' x W':  params kh·kw·(C/g)·C' (+C' bias),
//                                         forward FLOPs 2·kh·kw·(C/g)·C'·H'W' (+C'H'W' bias)
//   linear n -> m:                        params nm (+m), FLOPs 2nm (+m)
//   batch norm:                           params 2C, 3 elements moved per element (statistics pass, then
//                                         normalize) and kBatchNormFlops per element
//   relu, add, pools, dropout, concat:    memory-bound; cheap per-element FLOPs (concat copies, computes nothing)
//
// Saved activations count each tensor once: a layer saves its input unless that very tensor is already kept
// (in-place ReLU output feeding a conv, the block input shared by a bottleneck and its downsample branch).
// Private to the catalog (model_catalog.hpp); FLOP constants in cnn_builder.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "syncsim/compute/model_spec.hpp"

namespace syncsim::compute_detail {

// A kernel's (or padding's) extent in height and width: Inception's 1x7 and 7x1 convolutions are not square.
struct Extent {
  std::int64_t height = 0;
  std::int64_t width = 0;
};

struct FeatureMap {
  std::int64_t channels = 0;
  std::int64_t height = 0;
  std::int64_t width = 0;
  std::int64_t elements() const { return channels * height * width; }
};

// The current tensor: its shape and whether some layer already keeps it for backward.
struct CnnState {
  FeatureMap shape;
  bool saved = false;
};

class CnnBuilder {
 public:
  explicit CnnBuilder(FeatureMap input) : state_{input, false} {}

  const CnnState& state() const { return state_; }
  // Branches (residual paths) restart from a remembered state.
  void set_state(const CnnState& state) { state_ = state; }

  void conv(const std::string& name, std::int64_t out_channels, std::int64_t kernel, std::int64_t stride,
            std::int64_t padding, bool bias);
  // The general convolution: rectangular kernel and padding, grouped (ResNeXt) when groups > 1.
  void conv(const std::string& name, std::int64_t out_channels, Extent kernel, std::int64_t stride, Extent padding,
            bool bias, std::int64_t groups);
  void batch_norm(const std::string& name);
  void relu(const std::string& name);
  void max_pool(const std::string& name, std::int64_t kernel, std::int64_t stride, std::int64_t padding);
  void avg_pool(const std::string& name, std::int64_t kernel, std::int64_t stride, std::int64_t padding);
  // Average pooling to out x out (1 for the global pool before a classifier).
  void adaptive_avg_pool(const std::string& name, std::int64_t out);
  // Adds `other` (the shortcut) to the current tensor; same shape required.
  void add(const std::string& name, const CnnState& other);
  // Joins branches of one height and width along the channels (Inception's modules); the result is current.
  void concat(const std::string& name, const std::vector<CnnState>& parts);
  // Flattens the current tensor and applies a fully connected layer.
  void linear(const std::string& name, std::int64_t out_features);
  void dropout(const std::string& name);

  // The layers made so far (the importer checks each against its trace as it is made).
  const std::vector<Layer>& layers() const { return layers_; }
  std::vector<Layer> take() { return std::move(layers_); }

 private:
  // The saved count for a layer that needs its input, marking the tensor kept.
  std::int64_t save_input();

  CnnState state_;
  std::vector<Layer> layers_;
};

}  // namespace syncsim::compute_detail
