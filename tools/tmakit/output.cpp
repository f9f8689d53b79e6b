// The terminal-safe output filter (see output.hpp).
#include "output.hpp"

namespace tmakit::cli {
namespace {

// C0 controls (ESC starts every terminal escape sequence; CR and BS rewrite the line). Not DEL
// (0x7f): terminals ignore it, and JSON writes it raw inside strings, where "\x7f" would not parse.
bool is_c0(unsigned char c) { return c < 0x20 && c != '\n' && c != '\t'; }

// The length of the UTF-8 sequence a lead byte starts (2-4), or 0 when no sequence starts with it
// (a continuation byte, C0 / C1 overlong leads, bytes past U+10FFFF's).
int sequence_length(unsigned char lead) {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

// Whether c may follow `lead` as the second byte (the narrower ranges exclude overlong forms,
// UTF-16 surrogates and code points past U+10FFFF); later bytes are any continuation byte.
bool second_byte_ok(unsigned char lead, unsigned char c) {
  if (lead == 0xe0) return c >= 0xa0 && c <= 0xbf;
  if (lead == 0xed) return c >= 0x80 && c <= 0x9f;
  if (lead == 0xf0) return c >= 0x90 && c <= 0xbf;
  if (lead == 0xf4) return c >= 0x80 && c <= 0x8f;
  return c >= 0x80 && c <= 0xbf;
}

}  // namespace

bool EscapingStreambuf::put_hex(unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  const char e[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
  return target_->sputn(e, 4) == 4;
}

bool EscapingStreambuf::flush_pending_escaped() {
  bool ok = true;
  for (int i = 0; i < npending_; ++i) ok = put_hex(pending_[i]) && ok;
  npending_ = need_ = 0;
  return ok;
}

bool EscapingStreambuf::put(unsigned char c) {
  if (npending_ > 0) {
    const bool fits = npending_ == 1 ? second_byte_ok(pending_[0], c) : (c >= 0x80 && c <= 0xbf);
    if (!fits) {  // the sequence is cut short: its bytes escaped, c read afresh
      if (!flush_pending_escaped()) return false;
      return put(c);
    }
    pending_[npending_++] = c;
    if (npending_ < need_) return true;
    const int length = npending_;  // a whole, well-formed sequence
    npending_ = need_ = 0;
    if (pending_[0] == 0xc2 && pending_[1] <= 0x9f) {  // a C1 control
      static constexpr char kHex[] = "0123456789abcdef";
      const char e[6] = {'\\', 'u', '0', '0', kHex[pending_[1] >> 4], kHex[pending_[1] & 15]};
      return target_->sputn(e, 6) == 6;
    }
    return target_->sputn(reinterpret_cast<const char*>(pending_), length) == length;
  }
  if (c < 0x80) return is_c0(c) ? put_hex(c) : target_->sputc(static_cast<char>(c)) != traits_type::eof();
  need_ = sequence_length(c);
  if (need_ == 0) return put_hex(c);
  pending_[0] = c;
  npending_ = 1;
  return true;
}

EscapingStreambuf::int_type EscapingStreambuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  return put(static_cast<unsigned char>(traits_type::to_char_type(c))) ? c : traits_type::eof();
}

std::streamsize EscapingStreambuf::xsputn(const char* s, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    std::streamsize run = 0;  // printable ASCII outside a sequence goes through at once
    if (npending_ == 0)
      while (done + run < n) {
        const auto b = static_cast<unsigned char>(s[done + run]);
        if (b >= 0x80 || is_c0(b)) break;
        ++run;
      }
    if (run > 0 && target_->sputn(s + done, run) != run) return done;
    done += run;
    if (done < n) {
      if (!put(static_cast<unsigned char>(s[done]))) return done;
      ++done;
    }
  }
  return done;
}

// A sync between two writes may fall inside a character: the sequence read so far stays pending.
int EscapingStreambuf::sync() { return target_->pubsync(); }

bool EscapingStreambuf::finish() { return flush_pending_escaped(); }

bool EscapedStream::failed() {
  stream_.flush();
  const bool finished = buf_.finish();
  target_.flush();
  return !finished || stream_.fail() || target_.fail();
}

}  // namespace tmakit::cli
