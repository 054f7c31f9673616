// A block's tensor-parallel collectives, exposed or overlapped with its GEMMs (tensor_overlap.hpp). Every case
// writes its system and the expected times first.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <utility>

#include "syncsim/collectives/latency_model.hpp"
#include "tensor_overlap.hpp"  // sim/run/src

using namespace syncsim;
using namespace syncsim::run;

namespace {
SimTime us(double value) {
  return SimTime::from_seconds(value * 1e-6);
}
}  // namespace

TEST_CASE("without overlap a block's collectives are all exposed: two allreduces each way", "[tensor_overlap]") {
  const BlockTensorTime t = block_tensor_time({.allreduce = us(100), .tensor = 4, .gemm_runs = {us(50), us(20)}});
  CHECK(t.forward == us(200));
  CHECK(t.backward == us(200));
  const BlockTensorTime again =
      block_tensor_time({.allreduce = us(100), .tensor = 4, .gemm_runs = {}, .forward_again = 1});
  CHECK(again.backward == us(400));
}

TEST_CASE("overlapped, long GEMMs hide PyTorch's rings whole and show Megatron's last splits", "[tensor_overlap]") {
  // System: allreduce 80 us (each gather or scatter 40 us), tensor 4, GEMM runs QKV 100, projection 60, FC1 200,
  // FC2 120 us. PyTorch's collectives are rings of 3 exchanges on the copy engines beside the 3 GEMM steps after the
  // first, on the rank's own shard: 40 - 3/4 x 60 = -5 at the shortest, so nothing shows, either way.
  const BlockTensorInput in{
      .allreduce = us(80), .tensor = 4, .gemm_runs = {us(100), us(60), us(200), us(120)}, .overlap = true};
  const BlockTensorTime t = block_tensor_time(in);
  CHECK(t.forward == SimTime::zero());
  CHECK(t.backward == SimTime::zero());
  // Megatron's forward reduce-scatters are pipelined in 4 splits, the last after the GEMM: 10 us each, and their
  // GEMMs on the SMs they leave (24 for the projection's, 16 for FC2's).
  BlockTensorInput megatron = in;
  megatron.keeps_shard = true;
  CHECK(block_tensor_time(megatron).forward.ps() == Approx(us(20 + 60 * 24.0 / 108 + 120 * 16.0 / 116).ps()).margin(2));
  // Full recomputation runs the forward's again.
  BlockTensorInput again = in;
  again.forward_again = 1;
  CHECK(block_tensor_time(again).backward == t.backward + t.forward);
}

TEST_CASE("overlapped, a collective longer than its GEMM shows the difference", "[tensor_overlap]") {
  // System: allreduce 400 us (200 each), tensor 8, GEMM runs 100, 50, 150, 80 us; PyTorch's rings hide behind 7/8 of
  // each GEMM.
  //   forward:  200 - 87.5 = 112.5, 200 - 43.75 = 156.25, 200 - 131.25 = 68.75, 200 - 70 = 130
  //   backward: GEMMs doubled: 200 - 175 = 25, 200 - 87.5 = 112.5, 0 (200 - 262.5 < 0), 200 - 140 = 60
  const BlockTensorTime t = block_tensor_time(
      {.allreduce = us(400), .tensor = 8, .gemm_runs = {us(100), us(50), us(150), us(80)}, .overlap = true});
  CHECK(t.forward.ps() == Approx(us(112.5 + 156.25 + 68.75 + 130).ps()).margin(2));
  CHECK(t.backward.ps() == Approx(us(25 + 112.5 + 60).ps()).margin(2));
  // Overlap never costs more than leaving the collectives exposed here, and never less than what outlasts each
  // whole GEMM.
  CHECK(t.forward < us(800));
  CHECK(t.forward >= us(100 + 150 + 50 + 120));
}

TEST_CASE("selective_op gathers the block's two inputs again in backward", "[tensor_overlap]") {
  // Exposed: the two all-gathers are one allreduce's worth, 100 us, on top of the backward's 200 us.
  const BlockTensorTime exposed =
      block_tensor_time({.allreduce = us(100), .tensor = 4, .gemm_runs = {}, .gathers_again = 1});
  CHECK(exposed.forward == us(200));
  CHECK(exposed.backward == us(300));
  // Overlapped (the system of the case above): beside the forward's GEMM runs, the gathers show
  // 200 - 87.5 = 112.5 and 200 - 131.25 = 68.75 again, and take no SMs.
  const BlockTensorInput in{
      .allreduce = us(400), .tensor = 8, .gemm_runs = {us(100), us(50), us(150), us(80)}, .overlap = true};
  BlockTensorInput again = in;
  again.gathers_again = 1;
  CHECK((block_tensor_time(again).backward - block_tensor_time(in).backward).ps() ==
        Approx(us(112.5 + 68.75).ps()).margin(2));
}

TEST_CASE("GEMMs that do not form the four runs are shared evenly by the collectives", "[tensor_overlap]") {
  // System: allreduce 80 us, tensor 2, six runs of 40 us (240 us in all, 60 per collective): each ring of one
  // exchange hides behind the second half of its GEMM, 40 - 30 = 10.
  const BlockTensorTime t = block_tensor_time(
      {.allreduce = us(80), .tensor = 2, .gemm_runs = std::vector<SimTime>(6, us(40)), .overlap = true});
  CHECK(t.forward.ps() == Approx(us(4 * 10).ps()).margin(2));
}

TEST_CASE("Megatron's backward gathers the column-parallel inputs again: six collectives", "[tensor_overlap]") {
  // Exposed: the two all-gathers again are one allreduce's worth, 100 us, on top of the backward's 200 us.
  const BlockTensorTime exposed =
      block_tensor_time({.allreduce = us(100), .tensor = 4, .gemm_runs = {}, .keeps_shard = true});
  CHECK(exposed.forward == us(200));
  CHECK(exposed.backward == us(300));
  // Overlapped, short GEMMs: allreduce 400 us (200 each), tensor 8, GEMM runs QKV 100, projection 50, FC1 150,
  // FC2 80 us, as NeMo's H100 configurations run Transformer Engine's overlaps. Forward: the gathers ring exchanges
  // of 7 steps on the copy engines beside the GEMM's 7 steps after the first (on the rank's own shard), the scatters
  // pipelined in 4 splits of 50, each after its GEMM split, with their whole GEMM on the SMs they leave (24 for the
  // projection's, 16 for FC2's), which the splits after the first run beside, slowed:
  //   QKV  200 - 87.5 = 112.5;   proj 50 + (150 - 37.5 x 132/108) + 50 x 24/108
  //   FC1  200 - 131.25 = 68.75; FC2  50 + (150 - 60 x 132/116) + 80 x 16/116
  // Backward: at QKV and FC1 bulk gathers (4 and 2 SMs) beside the data-gradient product (g) and bulk scatters (16
  // and 4 SMs) beside the weight-gradient product (g), no first chunk; each outlasts its GEMM even on the SMs it
  // leaves, which then adds 200 - g whatever the SMs; at the projection and FC2 ring exchanges of the output gradient
  // beside both (2 g), FC2's in pairs (its first exchange of 7, 200/7, before the GEMM; 3 of its 4 steps of two
  // chunks hide what follows):
  //   QKV  gather 200 - 100 = 100, scatter 100
  //   proj gather beside 100: 200 - 87.5 = 112.5
  //   FC1  gather 200 - 150 = 50, scatter 50
  //   FC2  gather beside 160: max(28.6, 200 - 120) = 80
  const BlockTensorInput in{.allreduce = us(400),
                            .tensor = 8,
                            .gemm_runs = {us(100), us(50), us(150), us(80)},
                            .overlap = true,
                            .keeps_shard = true};
  const BlockTensorTime t = block_tensor_time(in);
  CHECK(
      t.forward.ps() ==
      Approx(
          us(112.5 + 200 - 37.5 * 132 / 108 + 68.75 + 200 - 60.0 * 132 / 116 + 50 * 24.0 / 108 + 80 * 16.0 / 116).ps())
          .margin(2));
  CHECK(t.backward.ps() == Approx(us(100 + 100 + 112.5 + 50 + 50 + 80).ps()).margin(3));
  // PyTorch's forward runs every collective as a ring on the copy engines (the case above).
  BlockTensorInput pytorch = in;
  pytorch.keeps_shard = false;
  CHECK(block_tensor_time(pytorch).forward.ps() == Approx(us(112.5 + 156.25 + 68.75 + 130).ps()).margin(2));
  // Long GEMMs (allreduce 80 us, tensor 4, runs 100, 60, 200, 120 us) hide everything but the bulk collectives' SMs
  // for the 40 us they run, and the first exchange of FC2's ring in pairs, 40/3.
  const BlockTensorInput hidden{.allreduce = us(80),
                                .tensor = 4,
                                .gemm_runs = {us(100), us(60), us(200), us(120)},
                                .overlap = true,
                                .keeps_shard = true};
  CHECK(block_tensor_time(hidden).backward.ps() == Approx(us(40.0 / 3 + 40 * (4.0 + 16 + 2 + 4) / 132).ps()).margin(3));
  // On a GPU of more SMs the same kernels take a smaller share: a B200's 148.
  BlockTensorInput blackwell = hidden;
  blackwell.gpu_sms = 148;
  CHECK(block_tensor_time(blackwell).backward < block_tensor_time(hidden).backward);
}

TEST_CASE("the five ways a collective runs beside its GEMM", "[tensor_overlap]") {
  // Half-allreduce 40 us beside a GEMM of 100 us on 132 SMs, in 4 chunks (a ring of 4), taking 12 SMs:
  //   chunked        the first chunk, 10, and the SMs' share while the other three run: 30 x 12/132
  //   sm_margin      the first chunk and the whole GEMM on the 120 SMs left: 100 x 12/120
  //   bulk           nothing waits: 0, and the SMs' share while it runs, 40 x 12/132
  //   ring_exchange  the GEMM starts on the rank's own shard, its 3 other steps hide 75: 0, and the SMs as bulk
  //   ring pairs     the first of 3 exchanges, 40/3, then 2 steps of two chunks, the second hiding 50; and the SMs'
  //                  share while the rest runs, 80/3 x 12/132
  const SimTime half = us(40);
  const SimTime gemm = us(100);
  const auto at = [&](OverlapMethod m) { return overlapped_collective(half, gemm, {m, 4, 12}, 132); };
  CHECK(at(OverlapMethod::chunked).ps() == Approx(us(10 + 30 * 12.0 / 132).ps()).margin(1));
  CHECK(at(OverlapMethod::sm_margin).ps() == Approx(us(10 + 10).ps()).margin(1));
  CHECK(at(OverlapMethod::bulk).ps() == Approx(us(40 * 12.0 / 132).ps()).margin(1));
  CHECK(at(OverlapMethod::ring_exchange).ps() == Approx(us(40 * 12.0 / 132).ps()).margin(1));
  CHECK(at(OverlapMethod::ring_exchange_pairs).ps() == Approx(us(40.0 / 3 + 80.0 / 3 * 12 / 132).ps()).margin(1));
  // A collective on SMs outlasting its GEMM even at the rate they leave it adds the difference: the GEMM runs wholly
  // beside it, whatever the SMs (150 us in bulk on 12 SMs beside 100: 50).
  CHECK(overlapped_collective(us(150), gemm, {OverlapMethod::bulk, 1, 12}, 132).ps() == Approx(us(50).ps()).margin(1));
  // A collective outlasting its GEMM shows the difference whatever the method, less the part of the GEMM it may run
  // beside (all of it in bulk, 3/4 in a ring of 4, 2/4 in pairs, the steps after the first); on the copy engines it
  // takes no SMs.
  CHECK(overlapped_collective(us(150), gemm, {OverlapMethod::bulk, 1, 0}, 132) == us(50));
  CHECK(overlapped_collective(us(150), gemm, {OverlapMethod::ring_exchange, 4, 0}, 132) == us(75));
  CHECK(overlapped_collective(us(150), gemm, {OverlapMethod::ring_exchange_pairs, 4, 0}, 132) == us(100));
  CHECK(overlapped_collective(us(150), gemm, {OverlapMethod::chunked, 4, 0}, 132) == us(75));
  // A configuration asking more SMs than the GPU has leaves the GEMM one.
  CHECK(overlapped_collective(half, gemm, {OverlapMethod::sm_margin, 4, 500}, 16).ps() ==
        Approx(us(10 + 100 * 15.0).ps()).margin(1));
}

TEST_CASE("under FP8 the all-gathers move the quantized activations and cost their own allreduce's half",
          "[tensor_overlap]") {
  // System: the reduce-scatters' allreduce 100 us (50 each), the all-gathers' 60 us (30 each: FP8 inputs, and a scale
  // nothing weighs), tensor 4, no GEMMs to hide behind.
  //   exposed, Megatron (keeps_shard, output gradients gathered in FP8 too):
  //     forward   2 x 30 + 2 x 50                                   = 160
  //     backward  output gradients 2 x 30 + scatters 2 x 50 + inputs again 2 x 30 = 220
  //   exposed, PyTorch's (output gradients gathered in 16 bits, after torchao casts nothing): backward 2 x 50 + 2 x 50
  const BlockTensorInput megatron{.allreduce = us(100),
                                  .tensor = 4,
                                  .gemm_runs = {},
                                  .keeps_shard = true,
                                  .gather_allreduce = us(60),
                                  .grad_gather_allreduce = us(60)};
  const BlockTensorTime m = block_tensor_time(megatron);
  CHECK(m.forward == us(160));
  CHECK(m.backward == us(220));
  const BlockTensorTime pytorch = block_tensor_time({.allreduce = us(100),
                                                     .tensor = 4,
                                                     .gemm_runs = {},
                                                     .gather_allreduce = us(60),
                                                     .grad_gather_allreduce = us(100)});
  CHECK(pytorch.forward == us(160));
  CHECK(pytorch.backward == us(200));
  // Full recomputation adds the forward's 160; selective_op the inputs' gathers again, 60.
  BlockTensorInput again = megatron;
  again.forward_again = 1;
  CHECK(block_tensor_time(again).backward == us(220 + 160));
  BlockTensorInput selective = megatron;
  selective.gathers_again = 1;
  CHECK(block_tensor_time(selective).backward == us(220 + 60));
  // Overlapped behind long GEMMs (runs 100, 60, 200, 120 us), as Megatron runs them (the case above): forward the
  // scatters' last splits, a quarter of 50, each scatter's whole GEMM on the SMs it leaves, the gathers' rings hidden;
  // backward the bulk collectives' SMs for as long as they run, the output gradients' rings hidden but for the first
  // exchange of FC2's in pairs, 30/3.
  BlockTensorInput overlapped = megatron;
  overlapped.gemm_runs = {us(100), us(60), us(200), us(120)};
  overlapped.overlap = true;
  const BlockTensorTime o = block_tensor_time(overlapped);
  CHECK(o.forward.ps() == Approx(us(25 + 60 * 24.0 / 108 + 120 * 16.0 / 116).ps()).margin(2));
  CHECK(o.backward.ps() == Approx(us(10 + (30 * 4.0 + 50 * 16 + 30 * 2 + 50 * 4) / 132).ps()).margin(3));
  // The same message either way is the one-type block: nothing changes.
  BlockTensorInput same = megatron;
  same.gather_allreduce = us(100);
  same.grad_gather_allreduce = us(100);
  BlockTensorInput plain = megatron;
  plain.gather_allreduce.reset();
  plain.grad_gather_allreduce.reset();
  CHECK(block_tensor_time(same).backward == block_tensor_time(plain).backward);
}

TEST_CASE("a userbuffers configuration runs each layer as Transformer Engine reads it", "[tensor_overlap]") {
  // Left out, a layer takes TE's initialize_ub defaults: its own method, pipelines in 4 splits on 16 SMs without the
  // margin, bulk on 16 SMs, rings on the copy engines.
  const UserbuffersConfig none;
  const auto check = [](const OverlapSpec& s, OverlapMethod method, std::int64_t chunks, double sms) {
    CHECK(s.method == method);
    CHECK(s.chunks == chunks);
    CHECK(s.sms == sms);
  };
  check(userbuffers_overlap(UbLayer::proj_fprop, none, 8), OverlapMethod::chunked, 4, 16);
  check(userbuffers_overlap(UbLayer::qkv_wgrad, none, 8), OverlapMethod::bulk, 1, 16);
  check(userbuffers_overlap(UbLayer::fc1_fprop, none, 8), OverlapMethod::ring_exchange, 8, 0);
  // Given: a ring off the copy engines on its num_sm (1 unless set), in pairs under aggregate (on an even group);
  // a pipeline's splits, SMs and margin; a pipeline or ring reduce-scatter's FP8 buffer.
  UserbuffersConfig given;
  given.layers[static_cast<std::size_t>(UbLayer::qkv_fprop)] = UbLayerSettings{.use_ce = false};
  given.layers[static_cast<std::size_t>(UbLayer::fc2_dgrad)] = UbLayerSettings{.aggregate = true};
  given.layers[static_cast<std::size_t>(UbLayer::fc2_fprop)] =
      UbLayerSettings{.num_sm = 8, .num_splits = 2, .set_sm_margin = true, .fp8_buf = true};
  given.layers[static_cast<std::size_t>(UbLayer::proj_fprop)] =
      UbLayerSettings{.method = UbMethod::ring_exchange, .fp8_buf = true};
  check(userbuffers_overlap(UbLayer::qkv_fprop, given, 4), OverlapMethod::ring_exchange, 4, 1);
  check(userbuffers_overlap(UbLayer::fc2_dgrad, given, 4), OverlapMethod::ring_exchange_pairs, 4, 0);
  check(userbuffers_overlap(UbLayer::fc2_dgrad, given, 3), OverlapMethod::ring_exchange, 3, 0);
  check(userbuffers_overlap(UbLayer::fc2_fprop, given, 4), OverlapMethod::sm_margin, 2, 8);
  CHECK(userbuffers_overlap(UbLayer::fc2_fprop, given, 4).fp8_buffer);
  CHECK(userbuffers_overlap(UbLayer::proj_fprop, given, 4).fp8_buffer);
  // fp8_buf names a buffer of the all-gathers too, which are FP8 under fp8 whatever it says: no reduce-scatter there.
  given.layers[static_cast<std::size_t>(UbLayer::qkv_fprop)] = UbLayerSettings{.fp8_buf = true};
  CHECK_FALSE(userbuffers_overlap(UbLayer::qkv_fprop, given, 4).fp8_buffer);
  // `true` is NeMo's H100 configuration: FC2's output-gradient ring in pairs.
  check(userbuffers_overlap(UbLayer::fc2_dgrad, nemo_h100_userbuffers(), 4), OverlapMethod::ring_exchange_pairs, 4, 0);
  check(userbuffers_overlap(UbLayer::proj_fprop, nemo_h100_userbuffers(), 4), OverlapMethod::sm_margin, 4, 24);
}

TEST_CASE("reduce-scatters from FP8 userbuffers move the FP8 output", "[tensor_overlap]") {
  // System: allreduce of the 16-bit activation 400 us (200 each way), of the FP8 one 240 us (120), tensor 4, GEMM
  // runs 100, 50, 150, 80 us, Megatron's layout. The projection's reduce-scatter pipelined in 4 splits on 24 SMs with
  // the margin, from an FP8 userbuffer: max(120/4, 120 - 37.5) = 82.5 where the 16-bit one shows
  // max(50, 200 - 37.5) = 162.5; its SMs slow the GEMM alike.
  UserbuffersConfig config = nemo_h100_userbuffers();
  auto& proj = config.layers[static_cast<std::size_t>(UbLayer::proj_fprop)];
  const BlockTensorInput in{.allreduce = us(400),
                            .tensor = 4,
                            .gemm_runs = {us(100), us(50), us(150), us(80)},
                            .overlap = true,
                            .keeps_shard = true,
                            .userbuffers = &config,
                            .fp8_scatter_allreduce = us(240)};
  const SimTime without = block_tensor_time(in).forward;
  proj->fp8_buf = true;
  CHECK((without - block_tensor_time(in).forward).ps() == Approx(us(162.5 - 82.5).ps()).margin(2));
  // Without an FP8 activation (model.precision bf16) the buffer is 16-bit, whatever fp8_buf says.
  BlockTensorInput plain = in;
  plain.fp8_scatter_allreduce.reset();
  CHECK(block_tensor_time(plain).forward == without);
}

TEST_CASE("an SM-driven collective moves no faster than its SMs", "[tensor_overlap]") {
  // One SM moves the whole 64 MiB buffer at Hopper's NCCL channel ceiling, 36.7 GB/s, in 67,108,864 / 36.7e9 s
  // (1,828.6 us). A rank of 4 moves 3/4 of it (a ring's three chunks, or a collective without multicast), 1,371.4 us on
  // one SM; on an NVSwitch that multicasts its own quarter, 457.1 us.
  const SimTime whole = one_sm_time(Bytes{64 << 20}, nccl_channel_ceiling(90));
  CHECK(whole.ps() == Approx(67108864 / 36.7e9 * 1e12).epsilon(1e-9));
  const OverlapSpec bulk{OverlapMethod::bulk, 1, 4};
  const OverlapSpec ring{OverlapMethod::ring_exchange, 4, 1};
  const auto near = [](SimTime a, SimTime b) { return std::abs(a.ps() - b.ps()) <= 2; };
  CHECK(near(sm_share_time(whole, bulk, 4, false), whole.scaled(0.75)));
  CHECK(near(sm_share_time(whole, bulk, 4, true), whole.scaled(0.25)));
  CHECK(near(sm_share_time(whole, ring, 4, true), whole.scaled(0.75)));
  CHECK(sm_share_time(whole, bulk, 1, false) == SimTime::zero());
  // A bulk all-gather of half-allreduce 150 us on 4 of 132 SMs beside a GEMM of 250 us hides on its own rate, its
  // SMs' share of the GEMM while it runs: 150 x 4/132. On 4 SMs without multicast it takes 1,371.4 / 4 = 342.9 us,
  // longer than the GEMM on the SMs it leaves (257.8): it adds 342.9 - 250. With multicast, 114.3 us: as on its own
  // rate.
  const SimTime half = us(150);
  const SimTime gemm = us(250);
  const SimTime unicast = sm_share_time(whole, bulk, 4, false);
  CHECK(near(overlapped_collective(half, gemm, bulk, 132), us(150 * 4.0 / 132)));
  CHECK(overlapped_collective(half, gemm, bulk, 132, unicast).ps() ==
        Approx((unicast.scaled(0.25) - gemm).ps()).margin(2));
  CHECK(near(overlapped_collective(half, gemm, bulk, 132, sm_share_time(whole, bulk, 4, true)), us(150 * 4.0 / 132)));
  // More SMs never show more (on a GPU so large that their share of it costs nothing): from 1 to 16 the shown time
  // falls until the collective hides.
  std::optional<SimTime> last;
  for (const double sms : {1.0, 2.0, 4.0, 8.0, 16.0}) {
    const SimTime shown = overlapped_collective(half, gemm, {OverlapMethod::bulk, 1, sms}, 1e12, unicast);
    if (last && *last > SimTime::zero()) CHECK(shown < *last);
    if (last) CHECK(shown <= *last);
    last = shown;
  }
  CHECK(near(*last, SimTime::zero()));
  // The copy engines' rings take no SMs and run at the collective's own rate.
  CHECK(overlapped_collective(us(150), gemm, {OverlapMethod::ring_exchange, 4, 0}, 132, unicast) == SimTime::zero());
}

TEST_CASE("a block's SM-driven collectives take their buffer's SM time", "[tensor_overlap]") {
  // Megatron's layout under NeMo's H100 configuration, tensor 4, allreduce 80 us (40 each way), GEMM runs QKV 100,
  // projection 60, FC1 200, FC2 120 us: every collective hides on its own rate. One SM takes 1,000 us for each whole
  // buffer; without multicast a rank's SMs move 3/4 of it, 750 us on one SM. The SMs take their share of the GEMM for
  // as long as the collective runs beside it, so a slower collective takes more; one that outlasts the GEMM on the
  // SMs it leaves adds its difference with the GEMM, where at its own rate (40 us) it added its SMs' share:
  //   forward   FC2's reduce-scatter on 16 SMs: 46.875 over 4 splits, its last 11.72 where 10 showed: +1.719; the
  //             projection's on 24 (31.25) and the rings (copy engines) as before
  //   backward  QKV's input gathered in bulk on 4 SMs: 187.5 beside its 100 us data gradient, 87.5, less 40 x 4/132;
  //             QKV's data gradient scattered on 16: 46.875, hidden, + 6.875 x 16/132; FC1's input on 2: 375 beside
  //             200, 175, less 40 x 2/132; FC1's scatter on 4: 187.5, hidden, + 147.5 x 4/132; the rows' rings as
  //             before
  const BlockTensorInput in{.allreduce = us(80),
                            .tensor = 4,
                            .gemm_runs = {us(100), us(60), us(200), us(120)},
                            .overlap = true,
                            .keeps_shard = true};
  BlockTensorInput limited = in;
  limited.one_sm = {.scatter = us(1000), .gather = us(1000), .grad_gather = us(1000), .fp8_scatter = us(1000)};
  const auto more = [&](const BlockTensorInput& x) {
    return std::pair{(block_tensor_time(x).forward - block_tensor_time(in).forward).ps(),
                     (block_tensor_time(x).backward - block_tensor_time(in).backward).ps()};
  };
  CHECK(more(limited).first == Approx(us(46.875 / 4 - 10).ps()).margin(2));
  CHECK(more(limited).second ==
        Approx(us(87.5 - 40 * 4.0 / 132 + 6.875 * 16 / 132 + 175 - 40 * 2.0 / 132 + 147.5 * 4 / 132).ps()).margin(8));
  // On an NVSwitch that multicasts each rank moves its own quarter, 250 us on one SM: everything hides; the
  // forward's collectives fit their own rate (10.4 and 15.6 us) and the backward's SMs run longer beside QKV
  // (its gather on 4 SMs, 62.5: + 22.5 x 4/132; its scatter on 16, 15.6, fits) and FC1 (125 on 2 SMs: + 85 x 2/132;
  // 62.5 on 4: + 22.5 x 4/132).
  limited.multicast = true;
  CHECK(more(limited).first == 0);
  CHECK(more(limited).second == Approx(us(22.5 * 4 / 132 + 85 * 2.0 / 132 + 22.5 * 4 / 132).ps()).margin(8));
}

TEST_CASE("a block's userbuffers overlaps, layer by layer, sum to its tensor time", "[tensor_overlap]") {
  // Megatron's layout under NeMo's H100 configuration with an SM ceiling that holds some back (above): the ten
  // overlaps in TE's order, the forward's four then the backward's six, each exposed + SM cost summing to the block's
  // time each way. PyTorch's layouts and layouts without the overlap have none.
  BlockTensorInput in{.allreduce = us(80),
                      .tensor = 4,
                      .gemm_runs = {us(100), us(60), us(200), us(120)},
                      .overlap = true,
                      .keeps_shard = true};
  in.one_sm = {.scatter = us(1000), .gather = us(1000), .grad_gather = us(1000), .fp8_scatter = us(1000)};
  const std::vector<LayerOverlap> layers = userbuffers_layers(in);
  const std::vector<UbLayer> order{UbLayer::qkv_fprop, UbLayer::proj_fprop, UbLayer::fc1_fprop,  UbLayer::fc2_fprop,
                                   UbLayer::qkv_dgrad, UbLayer::qkv_wgrad,  UbLayer::proj_dgrad, UbLayer::fc1_dgrad,
                                   UbLayer::fc1_wgrad, UbLayer::fc2_dgrad};
  REQUIRE(layers.size() == order.size());
  SimTime forward;
  SimTime backward;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    CHECK(layers[i].layer == order[i]);
    CHECK(layers[i].cost.collective >= layers[i].own_rate);
    (i < 4 ? forward : backward) += layers[i].cost.exposed + layers[i].cost.sm_cost;
  }
  CHECK(forward == block_tensor_time(in).forward);
  CHECK(backward == block_tensor_time(in).backward);
  // QKV's input gathered again on 4 SMs: 750 us for one SM, 187.5 on four, beside the 100 us product, which runs
  // wholly on the 128 SMs left: 103.125 us, 3.125 of them the SMs' cost, and 84.375 shown.
  CHECK(layers[4].one_sm == us(750));
  CHECK(layers[4].cost.collective.ps() == Approx(us(187.5).ps()).margin(2));
  CHECK(layers[4].cost.exposed.ps() == Approx(us(84.375).ps()).margin(2));
  CHECK(layers[4].cost.sm_cost.ps() == Approx(us(3.125).ps()).margin(2));
  // The copy engines' rings take no SMs.
  CHECK(layers[0].spec.sms == 0);
  CHECK(layers[0].cost.sm_cost == SimTime::zero());
  BlockTensorInput pytorch = in;
  pytorch.keeps_shard = false;
  CHECK(userbuffers_layers(pytorch).empty());
  BlockTensorInput exposed = in;
  exposed.overlap = false;
  CHECK(userbuffers_layers(exposed).empty());
}

TEST_CASE("Transformer Engine's userbuffers hold one buffer per overlapped layer", "[tensor_overlap]") {
  // Ten layers of 1,000 elements each, TE's buffers bf16: 20,000 B. Under a scaled precision the six all-gathers'
  // buffers are FP8, 1 byte: 6,000 + 4 x 2,000. A ring reduce-scatter (proj_fprop) holds 2t - 1 of t chunks: 7/4 of
  // its buffer at t 4; fp8_buf on a pipeline (fc2_fprop) makes its buffer FP8 under a scaled precision only.
  const UserbuffersConfig none;
  CHECK(userbuffers_bytes(none, 4, false, 1000).value == 20000);
  CHECK(userbuffers_bytes(none, 4, true, 1000).value == 14000);
  UserbuffersConfig ring;
  ring.layers[static_cast<std::size_t>(UbLayer::proj_fprop)] = UbLayerSettings{.method = UbMethod::ring_exchange};
  CHECK(userbuffers_bytes(ring, 4, false, 1000).value == 18000 + 3500);
  UserbuffersConfig fp8_buf;
  fp8_buf.layers[static_cast<std::size_t>(UbLayer::fc2_fprop)] = UbLayerSettings{.fp8_buf = true};
  CHECK(userbuffers_bytes(fp8_buf, 4, true, 1000).value == 13000);
  CHECK(userbuffers_bytes(fp8_buf, 4, false, 1000).value == 20000);
}
