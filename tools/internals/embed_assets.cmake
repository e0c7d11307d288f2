# Placeholder: the front-end helper writes the asset embedding. Until then, no assets.
set(NETSTACK_INTERNALS_ASSETS_CC ${CMAKE_CURRENT_SOURCE_DIR}/internals_assets_placeholder.cc)
