import './base.css';
import './plots.css';
