// HttpCacheTransaction's body half (the class is declared in http_cache_transaction.h; its
// lookup, validation and storage half is http_cache_transaction.cc): reading the body from the
// entry or the network, decoding it, appending it to the cache writer, and finishing the write.
// Kept apart so each file stays readable; nothing here decides what the cache serves.
#include <algorithm>
#include <string>

#include "net/http/http_cache.h"
#include "net/http/http_cache_transaction.h"

namespace netstack {
namespace {

// Raw (encoded) body bytes read from the entry or the network at once; also the most held.
constexpr int kRawBufferBytes = ReadBuffer::kBytes;

}  // namespace

int HttpCacheTransaction::Read(char* buf, int len, CompletionCallback callback) {
  if (bypass_) return network_->Read(buf, len, std::move(callback));
  if (!response_headers_) return ERR_FAILED;  // Read before Start succeeded.
  if (body_result_ <= 0) return body_result_;
  user_buf_ = buf;
  user_len_ = len;
  int rv = DoReadBody();
  if (rv == ERR_IO_PENDING) read_callback_ = std::move(callback);
  return rv;
}

int HttpCacheTransaction::DoReadBody() {
  for (;;) {
    if (!decoder_) {
      // Not decoding: the identity coding, which passes the bytes through under the bound.
      std::string coding;
      if (decode_content_) response_headers_->GetNormalizedHeader("content-encoding", &coding);
      std::string error;
      int rv = ContentDecoder::Create(coding, cache_->params().max_body_bytes, &decoder_, &error);
      if (rv != OK) {
        error_detail_ = error;
        return FinishBody(rv);
      }
    }
    if (decoder_->passes_through() && raw_pending_.empty() && !raw_eof_) {
      // Nothing to decode: the raw bytes are the body, read straight into the caller's buffer.
      int rv = ReadRaw(user_buf_, std::min(user_len_, kRawBufferBytes));
      if (rv == ERR_IO_PENDING) {
        direct_read_pending_ = true;
        return rv;
      }
      rv = HandleDirectResult(rv);
      if (rv != 0) return rv;
      continue;  // the end: Finish below
    }
    int rv = decoder_->Decode(&raw_pending_, user_buf_, static_cast<size_t>(user_len_));
    if (rv > 0) return rv;
    if (rv < 0) {
      error_detail_ = decoder_->error_message();
      return FinishBody(rv);
    }
    if (raw_eof_) {
      rv = decoder_->Finish();
      if (rv != OK) error_detail_ = decoder_->error_message();
      return FinishBody(rv);
    }
    raw_buf_.Allocate();
    rv = ReadRaw(raw_buf_.data(), kRawBufferBytes);
    if (rv == ERR_IO_PENDING) return rv;
    rv = HandleRawResult(rv);
    if (rv < 0) return FinishBody(rv);
  }
}

int HttpCacheTransaction::ReadRaw(char* buf, int len) {
  auto callback = [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnRawReadComplete(rv);
  };
  if (source_ == Source::kEntry) return entry_->ReadBody(raw_bytes_read_, buf, len, callback);
  if (source_ == Source::kNetwork) return network_->Read(buf, len, callback);
  return 0;
}

int HttpCacheTransaction::HandleDirectResult(int rv) {
  if (rv <= 0) {
    rv = HandleRawResult(rv);
    return rv < 0 ? FinishBody(rv) : 0;
  }
  raw_bytes_read_ += rv;
  direct_bytes_ += rv;
  // The bound a pass-through ContentDecoder applies (on what it copied and what came here),
  // with its message.
  const int64_t max_body_bytes = cache_->params().max_body_bytes;
  if (decoder_->output_bytes() + direct_bytes_ > max_body_bytes) {
    error_detail_ = "response body over " + std::to_string(max_body_bytes) + " bytes";
    return FinishBody(ERR_RESPONSE_BODY_TOO_BIG);
  }
  if (writer_) writer_->Append(user_buf_, rv);
  return rv;
}

int HttpCacheTransaction::HandleRawResult(int rv) {
  if (rv < 0) {
    if (source_ == Source::kNetwork) {
      error_detail_ = network_->error_detail();
    } else {
      error_detail_ = "the stored body of " + key_ + " became unreadable";
      net_log_.AddEvent(NetLogEventType::HTTP_CACHE_READ_DATA, [this, rv](NetLogParams& p) {
        p.Add("bytes", raw_bytes_read_).Add("net_error", rv);
      });
    }
    return rv;
  }
  if (rv == 0) {
    raw_eof_ = true;
    return OK;
  }
  raw_bytes_read_ += rv;
  raw_pending_ = std::string_view(raw_buf_.data(), static_cast<size_t>(rv));
  if (writer_) writer_->Append(raw_buf_.data(), rv);
  return OK;
}

void HttpCacheTransaction::OnRawReadComplete(int rv) {
  if (direct_read_pending_) {
    direct_read_pending_ = false;
    rv = HandleDirectResult(rv);
    if (rv == 0) rv = DoReadBody();
  } else {
    rv = HandleRawResult(rv);
    rv = rv < 0 ? FinishBody(rv) : DoReadBody();
  }
  if (rv == ERR_IO_PENDING) return;
  CompletionCallback cb = std::move(read_callback_);
  read_callback_ = nullptr;
  if (cb) cb(rv);  // May destroy this.
}

int HttpCacheTransaction::FinishBody(int rv) {
  body_result_ = rv;
  body_end_ticks_ = cache_->scheduler().Now();
  if (source_ == Source::kEntry && rv == 0) {
    net_log_.AddEvent(NetLogEventType::HTTP_CACHE_READ_DATA,
                      [this](NetLogParams& p) { p.Add("bytes", raw_bytes_read_); });
  }
  // The writer commits only a body that ended cleanly.
  if (writer_) {
    writer_->Finish(rv);
    writer_.reset();
  }
  return rv;
}

}  // namespace netstack
