"""Run-level safety: the site run lock and what a stopped run left behind."""
