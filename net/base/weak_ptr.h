// WeakPtr for single-threaded callbacks: a callback that captures a WeakPtr checks it before
// touching its object, so an object may be destroyed while work it started is still queued.
#ifndef NET_BASE_WEAK_PTR_H_
#define NET_BASE_WEAK_PTR_H_

#include <memory>

namespace netstack {

template <typename T>
class WeakPtr {
 public:
  WeakPtr() = default;
  T* get() const { return cell_ ? *cell_ : nullptr; }
  T* operator->() const { return get(); }
  explicit operator bool() const { return get() != nullptr; }

 private:
  template <typename U>
  friend class WeakPtrFactory;
  explicit WeakPtr(std::shared_ptr<T*> cell) : cell_(std::move(cell)) {}
  std::shared_ptr<T*> cell_;
};

// Declare as the last member of the owner so it invalidates first on destruction.
template <typename T>
class WeakPtrFactory {
 public:
  explicit WeakPtrFactory(T* owner) : owner_(owner), cell_(std::make_shared<T*>(owner)) {}
  ~WeakPtrFactory() { *cell_ = nullptr; }
  WeakPtrFactory(const WeakPtrFactory&) = delete;
  WeakPtrFactory& operator=(const WeakPtrFactory&) = delete;

  WeakPtr<T> GetWeakPtr() const { return WeakPtr<T>(cell_); }
  // Makes every WeakPtr handed out so far null; new ones work again.
  void InvalidateWeakPtrs() {
    *cell_ = nullptr;
    cell_ = std::make_shared<T*>(owner_);
  }
  bool HasWeakPtrs() const { return cell_.use_count() > 1; }

 private:
  T* owner_;
  std::shared_ptr<T*> cell_;
};

}  // namespace netstack

#endif  // NET_BASE_WEAK_PTR_H_
