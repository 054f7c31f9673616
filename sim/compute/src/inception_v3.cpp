// Inception v3 generated from its architecture (torchvision's Inception3, training mode: the auxiliary classifier
// after Mixed_6e runs and trains with the main head). Every convolution is torchvision's BasicConv2d: conv without
// bias, batch norm, ReLU. Modules concatenate their branches along the channels:
//
//   A (5b-5d)   1x1 | 1x1 -> 5x5 | 1x1 -> 3x3 -> 3x3 | avgpool 3 -> 1x1            35 x 35
//   B (6a)      3x3/2 | 1x1 -> 3x3 -> 3x3/2 | maxpool 3/2                            35 -> 17
//   C (6b-6e)   1x1 | 1x1 -> 1x7 -> 7x1 | 1x1 -> 7x1 -> 1x7 -> 7x1 -> 1x7 | avgpool -> 1x1   17 x 17
//   D (7a)      1x1 -> 3x3/2 | 1x1 -> 1x7 -> 7x1 -> 3x3/2 | maxpool 3/2              17 -> 8
//   E (7b, 7c)  1x1 | 1x1 -> (1x3, 3x1) | 1x1 -> 3x3 -> (1x3, 3x1) | avgpool -> 1x1  8 x 8
#include <fmt/format.h>

#include "cnn_builder.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

using compute_detail::CnnBuilder;
using compute_detail::CnnState;
using compute_detail::Extent;

namespace {

// torchvision refuses smaller inputs: below 75 pixels the stem and the strided modules leave nothing to convolve.
constexpr std::int64_t kMinInceptionImage = 75;

class Inception {
 public:
  explicit Inception(std::int64_t image_size) : b_({3, image_size, image_size}) {}

  // BasicConv2d: conv (no bias), batch norm, ReLU.
  void conv(const std::string& name, std::int64_t out, Extent kernel, std::int64_t stride = 1, Extent padding = {}) {
    b_.conv(name + ".conv", out, kernel, stride, padding, false, 1);
    b_.batch_norm(name + ".bn");
    b_.relu(name + ".relu");
  }
  void conv(const std::string& name, std::int64_t out, std::int64_t kernel, std::int64_t stride = 1,
            std::int64_t padding = 0) {
    conv(name, out, {kernel, kernel}, stride, {padding, padding});
  }

  void module_a(const std::string& m, std::int64_t pool_features) {
    const CnnState in = b_.state();
    conv(m + ".branch1x1", 64, 1);
    const CnnState b1 = branch_end(in);
    conv(m + ".branch5x5_1", 48, 1);
    conv(m + ".branch5x5_2", 64, 5, 1, 2);
    const CnnState b5 = branch_end(in);
    conv(m + ".branch3x3dbl_1", 64, 1);
    conv(m + ".branch3x3dbl_2", 96, 3, 1, 1);
    conv(m + ".branch3x3dbl_3", 96, 3, 1, 1);
    const CnnState b3 = branch_end(in);
    b_.avg_pool(m + ".branch_pool.avgpool", 3, 1, 1);
    conv(m + ".branch_pool", pool_features, 1);
    b_.concat(m + ".concat", {b1, b5, b3, b_.state()});
  }

  void module_b(const std::string& m) {
    const CnnState in = b_.state();
    conv(m + ".branch3x3", 384, 3, 2);
    const CnnState b3 = branch_end(in);
    conv(m + ".branch3x3dbl_1", 64, 1);
    conv(m + ".branch3x3dbl_2", 96, 3, 1, 1);
    conv(m + ".branch3x3dbl_3", 96, 3, 2);
    const CnnState b33 = branch_end(in);
    b_.max_pool(m + ".branch_pool", 3, 2, 0);
    b_.concat(m + ".concat", {b3, b33, b_.state()});
  }

  void module_c(const std::string& m, std::int64_t c7) {
    const CnnState in = b_.state();
    conv(m + ".branch1x1", 192, 1);
    const CnnState b1 = branch_end(in);
    conv(m + ".branch7x7_1", c7, 1);
    conv(m + ".branch7x7_2", c7, {1, 7}, 1, {0, 3});
    conv(m + ".branch7x7_3", 192, {7, 1}, 1, {3, 0});
    const CnnState b7 = branch_end(in);
    conv(m + ".branch7x7dbl_1", c7, 1);
    conv(m + ".branch7x7dbl_2", c7, {7, 1}, 1, {3, 0});
    conv(m + ".branch7x7dbl_3", c7, {1, 7}, 1, {0, 3});
    conv(m + ".branch7x7dbl_4", c7, {7, 1}, 1, {3, 0});
    conv(m + ".branch7x7dbl_5", 192, {1, 7}, 1, {0, 3});
    const CnnState b77 = branch_end(in);
    b_.avg_pool(m + ".branch_pool.avgpool", 3, 1, 1);
    conv(m + ".branch_pool", 192, 1);
    b_.concat(m + ".concat", {b1, b7, b77, b_.state()});
  }

  void module_d(const std::string& m) {
    const CnnState in = b_.state();
    conv(m + ".branch3x3_1", 192, 1);
    conv(m + ".branch3x3_2", 320, 3, 2);
    const CnnState b3 = branch_end(in);
    conv(m + ".branch7x7x3_1", 192, 1);
    conv(m + ".branch7x7x3_2", 192, {1, 7}, 1, {0, 3});
    conv(m + ".branch7x7x3_3", 192, {7, 1}, 1, {3, 0});
    conv(m + ".branch7x7x3_4", 192, 3, 2);
    const CnnState b7 = branch_end(in);
    b_.max_pool(m + ".branch_pool", 3, 2, 0);
    b_.concat(m + ".concat", {b3, b7, b_.state()});
  }

  void module_e(const std::string& m) {
    const CnnState in = b_.state();
    conv(m + ".branch1x1", 320, 1);
    const CnnState b1 = branch_end(in);
    conv(m + ".branch3x3_1", 384, 1);
    const CnnState split = b_.state();
    conv(m + ".branch3x3_2a", 384, {1, 3}, 1, {0, 1});
    const CnnState a = branch_end(split);
    conv(m + ".branch3x3_2b", 384, {3, 1}, 1, {1, 0});
    b_.concat(m + ".branch3x3", {a, b_.state()});
    const CnnState b3 = branch_end(in);
    conv(m + ".branch3x3dbl_1", 448, 1);
    conv(m + ".branch3x3dbl_2", 384, 3, 1, 1);
    const CnnState split2 = b_.state();
    conv(m + ".branch3x3dbl_3a", 384, {1, 3}, 1, {0, 1});
    const CnnState c = branch_end(split2);
    conv(m + ".branch3x3dbl_3b", 384, {3, 1}, 1, {1, 0});
    b_.concat(m + ".branch3x3dbl", {c, b_.state()});
    const CnnState b33 = branch_end(in);
    b_.avg_pool(m + ".branch_pool.avgpool", 3, 1, 1);
    conv(m + ".branch_pool", 192, 1);
    b_.concat(m + ".concat", {b1, b3, b33, b_.state()});
  }

  // The auxiliary classifier on Mixed_6e's output; the main path resumes from there.
  void aux(std::int64_t classes) {
    const CnnState in = b_.state();
    b_.avg_pool("AuxLogits.avgpool", 5, 3, 0);
    conv("AuxLogits.conv0", 128, 1);
    conv("AuxLogits.conv1", 768, 5);
    b_.adaptive_avg_pool("AuxLogits.adaptive_avgpool", 1);
    b_.linear("AuxLogits.fc", classes);
    branch_end(in);
  }

  CnnBuilder& builder() { return b_; }

 private:
  // Ends a branch: returns its output and goes back to the module's input (already saved by the first branch).
  CnnState branch_end(const CnnState& input) {
    const CnnState out = b_.state();
    CnnState shared = input;
    shared.saved = true;
    b_.set_state(shared);
    return out;
  }

  CnnBuilder b_;
};

}  // namespace

ModelSpec inception_v3(std::int64_t image_size, std::int64_t classes) {
  if (image_size < kMinInceptionImage) {
    throw InputError(
        fmt::format("Inception v3 needs images of at least {} pixels, got {}", kMinInceptionImage, image_size));
  }
  if (classes < 1) throw InputError(fmt::format("a classifier needs at least one class, got {}", classes));
  Inception net(image_size);
  CnnBuilder& b = net.builder();
  net.conv("Conv2d_1a_3x3", 32, 3, 2);
  net.conv("Conv2d_2a_3x3", 32, 3);
  net.conv("Conv2d_2b_3x3", 64, 3, 1, 1);
  b.max_pool("maxpool1", 3, 2, 0);
  net.conv("Conv2d_3b_1x1", 80, 1);
  net.conv("Conv2d_4a_3x3", 192, 3);
  b.max_pool("maxpool2", 3, 2, 0);
  net.module_a("Mixed_5b", 32);
  net.module_a("Mixed_5c", 64);
  net.module_a("Mixed_5d", 64);
  net.module_b("Mixed_6a");
  net.module_c("Mixed_6b", 128);
  net.module_c("Mixed_6c", 160);
  net.module_c("Mixed_6d", 160);
  net.module_c("Mixed_6e", 192);
  net.aux(classes);
  net.module_d("Mixed_7a");
  net.module_e("Mixed_7b");
  net.module_e("Mixed_7c");
  b.adaptive_avg_pool("avgpool", 1);
  b.dropout("dropout");
  b.linear("fc", classes);
  return ModelSpec("inception3", b.take());
}

}  // namespace syncsim
