public enum MovieDemoPlaceholder {}
