// The terminal-safe output filter (see output.hpp).
#include "output.hpp"

namespace tmakit::cli {
namespace {

// C0 controls (ESC starts every terminal escape sequence; CR and BS rewrite the line). Not DEL
// (0x7f): terminals ignore it, and JSON writes it raw inside strings, where "\x7f" would not parse.
bool needs_escape(unsigned char c) { return c < 0x20 && c != '\n' && c != '\t'; }

}  // namespace

bool EscapingStreambuf::put_escaped(unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  const char e[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
  return target_->sputn(e, 4) == 4;
}

EscapingStreambuf::int_type EscapingStreambuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const auto b = static_cast<unsigned char>(traits_type::to_char_type(c));
  if (needs_escape(b)) return put_escaped(b) ? c : traits_type::eof();
  return target_->sputc(static_cast<char>(b));
}

std::streamsize EscapingStreambuf::xsputn(const char* s, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    std::streamsize run = 0;  // the bytes up to the next one to escape go through at once
    while (done + run < n && !needs_escape(static_cast<unsigned char>(s[done + run]))) ++run;
    if (run > 0 && target_->sputn(s + done, run) != run) return done;
    done += run;
    if (done < n) {
      if (!put_escaped(static_cast<unsigned char>(s[done]))) return done;
      ++done;
    }
  }
  return done;
}

int EscapingStreambuf::sync() { return target_->pubsync(); }

bool EscapedStream::failed() {
  stream_.flush();
  target_.flush();
  return stream_.fail() || target_.fail();
}

}  // namespace tmakit::cli
