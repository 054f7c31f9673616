// ResNet and VGG generated from their architectures (torchvision's definitions).
#include <fmt/format.h>

#include "cnn_builder.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

using compute_detail::CnnBuilder;
using compute_detail::CnnState;

namespace {
// Five stride-2 reductions take 224 to 7; below 32 pixels a stage would have nothing left to convolve.
constexpr std::int64_t kMinImageSize = 32;
constexpr std::int64_t kBottleneckExpansion = 4;

void require_image(std::int64_t image_size, std::int64_t classes) {
  if (image_size < kMinImageSize) {
    throw InputError(fmt::format("image size must be at least {} pixels, got {}", kMinImageSize, image_size));
  }
  if (classes < 1) throw InputError(fmt::format("a classifier needs at least one class, got {}", classes));
}

// torchvision's Bottleneck (v1.5): 1x1 reduce, 3x3 with the stride (in groups for ResNeXt), 1x1 expand, each
// followed by batch norm; a 1x1 strided projection on the shortcut when the shape changes.
//
//   x ─┬─ conv1 1x1 ─ bn ─ relu ─ conv2 3x3/s ─ bn ─ relu ─ conv3 1x1 ─ bn ─┬─ add ─ relu
//      └────────────────── [downsample: conv 1x1/s ─ bn] ───────────────────┘
void bottleneck(CnnBuilder& b, const std::string& prefix, std::int64_t planes, std::int64_t stride,
                const ResNetWidth& shape) {
  const CnnState input = b.state();
  const std::int64_t out_channels = planes * kBottleneckExpansion;
  const std::int64_t width = planes * shape.width_per_group / 64 * shape.groups;
  b.conv(prefix + "conv1", width, 1, 1, 0, false);
  b.batch_norm(prefix + "bn1");
  b.relu(prefix + "relu1");
  b.conv(prefix + "conv2", width, {3, 3}, stride, {1, 1}, false, shape.groups);
  b.batch_norm(prefix + "bn2");
  b.relu(prefix + "relu2");
  b.conv(prefix + "conv3", out_channels, 1, 1, 0, false);
  b.batch_norm(prefix + "bn3");
  CnnState shortcut = input;
  if (stride != 1 || input.shape.channels != out_channels) {
    const CnnState main = b.state();
    CnnState shared = input;
    shared.saved = true;  // conv1 already keeps the block input
    b.set_state(shared);
    b.conv(prefix + "downsample.conv", out_channels, 1, stride, 0, false);
    b.batch_norm(prefix + "downsample.bn");
    shortcut = b.state();
    b.set_state(main);
  }
  b.add(prefix + "add", shortcut);
  b.relu(prefix + "relu3");
}
}  // namespace

ModelSpec resnet(std::string name, const std::vector<std::int64_t>& blocks, std::int64_t image_size,
                 std::int64_t classes, ResNetWidth width_shape) {
  require_image(image_size, classes);
  if (blocks.size() != 4) throw InputError(fmt::format("a ResNet has 4 stages, got {}", blocks.size()));
  if (width_shape.groups < 1 || width_shape.width_per_group < 1) {
    throw InputError("a ResNeXt needs at least one group of at least one channel");
  }
  CnnBuilder b({3, image_size, image_size});
  b.conv("conv1", 64, 7, 2, 3, false);
  b.batch_norm("bn1");
  b.relu("relu");
  b.max_pool("maxpool", 3, 2, 1);
  std::int64_t width = 64;
  for (std::size_t stage = 0; stage < blocks.size(); ++stage) {
    if (blocks[stage] < 1) throw InputError(fmt::format("ResNet stage {} needs at least one block", stage + 1));
    for (std::int64_t block = 0; block < blocks[stage]; ++block) {
      const std::int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      bottleneck(b, fmt::format("layer{}.{}.", stage + 1, block), width, stride, width_shape);
    }
    width *= 2;
  }
  b.adaptive_avg_pool("avgpool", 1);
  b.linear("fc", classes);
  return ModelSpec(std::move(name), b.take());
}

ModelSpec vgg16(std::int64_t image_size, std::int64_t classes) {
  require_image(image_size, classes);
  // torchvision cfg "D": 3x3 convolutions (padding 1, with bias) and 2x2 max pools ("M").
  constexpr std::int64_t kPool = 0;
  constexpr std::int64_t kConfig[] = {64,    64,  kPool, 128, 128,   kPool, 256, 256, 256,
                                      kPool, 512, 512,   512, kPool, 512,   512, 512, kPool};
  constexpr std::int64_t kClassifierWidth = 4096;
  CnnBuilder b({3, image_size, image_size});
  int conv = 0;
  int pool = 0;
  for (std::int64_t channels : kConfig) {
    if (channels == kPool) {
      b.max_pool(fmt::format("features.pool{}", ++pool), 2, 2, 0);
      continue;
    }
    ++conv;
    b.conv(fmt::format("features.conv{}", conv), channels, 3, 1, 1, true);
    b.relu(fmt::format("features.relu{}", conv));
  }
  // torchvision's adaptive pool makes 7x7 whatever the input size, so the classifier's size never changes.
  b.adaptive_avg_pool("avgpool", 7);
  b.linear("classifier.fc1", kClassifierWidth);
  b.relu("classifier.relu1");
  b.dropout("classifier.dropout1");
  b.linear("classifier.fc2", kClassifierWidth);
  b.relu("classifier.relu2");
  b.dropout("classifier.dropout2");
  b.linear("classifier.fc3", classes);
  return ModelSpec("vgg16", b.take());
}

}  // namespace syncsim
