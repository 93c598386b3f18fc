# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE): the .deb installs under /usr, the tarball keeps the
# relative layout (bin/, libexec/mcphealth/, share/) to unpack under any prefix.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
endif()
