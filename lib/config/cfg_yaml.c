/* placeholder */ int rtr_placeholder_cfg_yaml(void); int rtr_placeholder_cfg_yaml(void) { return 0; }
