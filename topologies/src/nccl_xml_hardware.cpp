// NCCL's hardware constants applied to the attributes of its topology XML; the table is in nccl_xml_hardware.hpp.
#include "nccl_xml_hardware.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace syncsim::nccl_xml {

namespace {

struct PcieRate {
  double gt_per_s;
  double gb_per_s_per_lane;
};
constexpr std::array<PcieRate, 6> kPcieRates{{{2.5, 0.1875}, {5, 0.375}, {8, 0.75}, {16, 1.5}, {32, 3}, {64, 6}}};
constexpr double kFallbackLaneGBps = 0.75;
constexpr std::int64_t kFallbackLanes = 16;
constexpr std::int64_t kMaxLanes = 32;

constexpr double kSm60NvlinkGBps = 18, kSm70NvlinkGBps = 20, kSm80NvlinkGBps = 20, kSm86NvlinkGBps = 12;
constexpr double kSm90NvlinkGBps = 20.6, kSm100NvlinkGBps = 40.1;

constexpr double kP9GBps = 32, kArmGBps = 6;
constexpr double kIntelBdwGBps = 6, kIntelSklGBps = 10, kIntelSrpGBps = 22, kIntelErpGBps = 40;
constexpr double kAmdZen12GBps = 16, kAmdZen34GBps = 24, kAmdZen5GBps = 32;
constexpr double kZhaoxinGBps = 6, kZhaoxinYongfengGBps = 9;

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

}  // namespace

void Source::fail(const xml::Element& element, const std::string& message) const {
  throw InputError(message, at(element.at), element.name);
}

void Source::fail(const xml::Element& element, const xml::Attribute& attribute, const std::string& message) const {
  throw InputError(message, at(attribute.value_at), element.name + "." + attribute.name);
}

const xml::Attribute& Source::required(const xml::Element& element, std::string_view attribute_name) const {
  const xml::Attribute* attribute = element.attribute(attribute_name);
  if (attribute == nullptr) fail(element, fmt::format("attribute '{}' missing", attribute_name));
  return *attribute;
}

std::int64_t Source::integer(const xml::Element& element, const xml::Attribute& attribute, std::int64_t minimum) const {
  std::string_view text = attribute.value;
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (hex) text.remove_prefix(2);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, hex ? 16 : 10);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() ||
      (negative ? -value : value) < minimum) {
    fail(element, attribute, fmt::format("expected a whole number >= {}, got '{}'", minimum, attribute.value));
  }
  return negative ? -value : value;
}

std::int64_t Source::integer(const xml::Element& element, std::string_view attribute_name, std::int64_t minimum) const {
  return integer(element, required(element, attribute_name), minimum);
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::uint64_t bus_id(const Source& source, const xml::Element& element, const xml::Attribute& attribute) {
  std::uint64_t value = 0;
  int digits = 0;
  for (const char c : attribute.value) {
    if (c == ':' || c == '.') continue;
    const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                      : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                      : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                                  : -1;
    if (digit < 0 || ++digits > 16) break;
    value = value * 16 + static_cast<std::uint64_t>(digit);
  }
  const bool valid =
      digits > 0 && digits <= 16 && std::all_of(attribute.value.begin(), attribute.value.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
      });
  if (!valid) {
    source.fail(element, attribute, fmt::format("expected a PCI bus id like 0000:07:00.0, got '{}'", attribute.value));
  }
  return value;
}

Bandwidth pcie_bandwidth(const Source& source, const xml::Element& pci) {
  const xml::Attribute& speed = source.required(pci, "link_speed");
  const xml::Attribute& width = source.required(pci, "link_width");
  double lane = kFallbackLaneGBps;
  const std::string_view text = trim_spaces(speed.value);
  if (!text.empty() && lower(text) != "unknown") {
    double gt = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), gt);
    const std::string_view unit = trim_spaces(text.substr(static_cast<std::size_t>(end - text.data())));
    const auto rate =
        std::find_if(kPcieRates.begin(), kPcieRates.end(), [&](const PcieRate& r) { return r.gt_per_s == gt; });
    if (error != std::errc{} || (unit != "GT/s" && unit != "GT/s PCIe") || rate == kPcieRates.end()) {
      source.fail(pci, speed,
                  fmt::format("unknown link_speed '{}': expected 2.5, 5, 8, 16, 32 or 64 GT/s, "
                              "written like \"16.0 GT/s PCIe\" or \"16 GT/s\"",
                              speed.value));
    }
    lane = rate->gb_per_s_per_lane;
  }
  std::int64_t lanes = trim_spaces(width.value).empty() ? 0 : source.integer(pci, width, 0);
  if (lanes == 0) lanes = kFallbackLanes;
  if (lanes > kMaxLanes) {
    source.fail(pci, width, fmt::format("a PCIe link has at most {} lanes, got {}", kMaxLanes, lanes));
  }
  return Bandwidth::from_gb_per_s(static_cast<double>(lanes) * lane);
}

double nvlink_gb_per_s(std::int64_t sm) {
  if (sm >= 100) return kSm100NvlinkGBps;
  if (sm >= 90) return kSm90NvlinkGBps;
  if (sm == 86) return kSm86NvlinkGBps;
  if (sm >= 80) return kSm80NvlinkGBps;
  if (sm >= 70) return kSm70NvlinkGBps;
  if (sm >= 60) return kSm60NvlinkGBps;
  return kSm80NvlinkGBps;
}

double inter_cpu_gb_per_s(const Source& source, const xml::Element& cpu) {
  const xml::Attribute& arch = source.required(cpu, "arch");
  if (arch.value.starts_with("ppc64")) return kP9GBps;
  if (arch.value.starts_with("arm64")) return kArmGBps;
  if (!arch.value.starts_with("x86_64")) {
    source.fail(cpu, arch, fmt::format("unknown CPU arch '{}' (known: x86_64, arm64, ppc64)", arch.value));
  }
  const xml::Attribute& vendor = source.required(cpu, "vendor");
  const std::string_view name = trim_spaces(vendor.value);
  if (name != "GenuineIntel" && name != "AuthenticAMD" && name != "CentaurHauls" && name != "Shanghai") {
    source.fail(cpu, vendor,
                fmt::format("unknown x86_64 CPU vendor '{}' (known: GenuineIntel, AuthenticAMD, CentaurHauls)", name));
  }
  const std::int64_t family = source.integer(cpu, "familyid", 0);
  if (name == "GenuineIntel") {
    const std::int64_t model = source.integer(cpu, "modelid", 0);
    if (family != 6) return kIntelBdwGBps;
    // Granite Rapids and Sierra Forest (0xAD-0xAF) are newer than their model ids suggest.
    if (model >= 0xCF || model == 0xAD || model == 0xAE || model == 0xAF) return kIntelErpGBps;
    return model >= 0x8F ? kIntelSrpGBps : model >= 0x55 ? kIntelSklGBps : kIntelBdwGBps;
  }
  if (name == "AuthenticAMD") {
    // CPUID families 23/25/26 (0x17/0x19/0x1A); NCCL also accepts its older encodings 0x8F/0xAF/0xBF.
    if (family == 26 || family == 0xBF) return kAmdZen5GBps;
    return family == 25 || family == 0xAF ? kAmdZen34GBps : kAmdZen12GBps;
  }
  return family == 7 && source.integer(cpu, "modelid", 0) == 0x5B ? kZhaoxinYongfengGBps : kZhaoxinGBps;
}

}  // namespace syncsim::nccl_xml
