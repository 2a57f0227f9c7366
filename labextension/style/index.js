import './base.css';
import './cluster.css';
