#include "core/base/identity.hpp"

#include <algorithm>
#include <cctype>

#include <cctype>
#include <cstdlib>
#include <fmt/format.h>

namespace attribution {
namespace {
bool hex_only(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}
unsigned long hexval(std::string_view s) { return std::strtoul(std::string(s).c_str(), nullptr, 16); }
}  // namespace

std::string normalize_pci(std::string_view t) {
  if (t.substr(0, 4) == "PCI:" || t.substr(0, 4) == "pci:") t.remove_prefix(4);
  size_t sp = t.find_first_of(" )");
  if (sp != std::string_view::npos) t = t.substr(0, sp);
  std::string_view domain = "0", bus, dev, fn = "0";
  size_t c1 = t.find(':');
  if (c1 == std::string_view::npos) return {};
  size_t c2 = t.find(':', c1 + 1);
  std::string_view devfn;
  if (c2 == std::string_view::npos) {
    bus = t.substr(0, c1);
    devfn = t.substr(c1 + 1);
  } else {
    domain = t.substr(0, c1);
    bus = t.substr(c1 + 1, c2 - c1 - 1);
    devfn = t.substr(c2 + 1);
  }
  size_t dot = devfn.find('.');
  dev = devfn.substr(0, dot);
  if (dot != std::string_view::npos) fn = devfn.substr(dot + 1);
  if (!hex_only(domain) || !hex_only(bus) || !hex_only(dev) || !hex_only(fn) || domain.size() > 8 ||
      bus.size() > 2 || dev.size() > 2 || fn.size() > 1)
    return {};
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", hexval(domain), hexval(bus), hexval(dev), hexval(fn));
}

std::string pci_from_nccl_busid(std::string_view hex) {
  if (!hex_only(hex) || hex.size() > 12) return {};
  unsigned long long id = std::strtoull(std::string(hex).c_str(), nullptr, 16);
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", id >> 20, (id & 0xff000) >> 12, (id & 0xff0) >> 4, id & 0xf);
}

bool is_ip_address(std::string_view s) {
  if (s.empty()) return false;
  if (s.find(':') != std::string_view::npos) return true;  // IPv6
  int dots = 0;
  for (char c : s) {
    if (c == '.') ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return dots == 3;
}

std::string peer_host(std::string_view p) {
  size_t lt = p.find('<');
  if (lt != std::string_view::npos) p = p.substr(0, lt);
  size_t pct = p.find('%');
  if (pct != std::string_view::npos) p = p.substr(0, pct);
  if (p.substr(0, 7) == "::ffff:") p.remove_prefix(7);
  if (!is_ip_address(p)) {
    size_t dot = p.find('.');
    if (dot != std::string_view::npos) p = p.substr(0, dot);
  }
  return std::string(p);
}

std::string short_host(std::string_view h) {
  if (!is_ip_address(h)) h = h.substr(0, h.find('.'));
  return std::string(h);
}

std::string address_in_name(std::string_view host) {
  if (host.substr(0, 3) != "ip-") return "";
  std::string out;
  int octets = 0;
  size_t i = 3;
  while (i < host.size() && octets < 4) {
    size_t j = i;
    while (j < host.size() && std::isdigit(static_cast<unsigned char>(host[j]))) ++j;
    if (j == i || j - i > 3 || std::stoi(std::string(host.substr(i, j - i))) > 255) return "";
    out += (octets ? "." : "") + std::string(host.substr(i, j - i));
    ++octets;
    if (octets < 4 && (j >= host.size() || host[j] != '-')) return "";
    i = j + 1;
  }
  bool end = i - 1 == host.size() || (i - 1 < host.size() && host[i - 1] == '.');
  return octets == 4 && end ? out : "";
}

bool is_container_id(std::string_view host) {
  return host.size() == 12 && std::all_of(host.begin(), host.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         }) && std::any_of(host.begin(), host.end(), [](char c) { return c >= 'a' && c <= 'f'; });
}

std::string reversed_ipv4(std::string_view s) {
  std::string out;
  for (size_t end = s.size(); end != std::string_view::npos;) {
    size_t dot = s.rfind('.', end == 0 ? 0 : end - 1);
    size_t from = dot == std::string_view::npos ? 0 : dot + 1;
    if (!out.empty()) out += '.';
    out.append(s.substr(from, end - from));
    if (dot == std::string_view::npos || end == 0) break;
    end = dot;
  }
  return out;
}

}  // namespace attribution
